// Model validation of a user, with the platform's messages, collected per field.
import type { FieldErrors } from '../../core/errors.ts';
import { NAMESPACE_FORMAT_MESSAGE, isNamespaceFormat, isReservedPath } from '../../domain/namespace-paths.ts';
import { BLANK, INVALID, addError, atLeast, atMost, tooLong, tooShort } from '../../domain/validation.ts';

// Devise's default email format: something, one @, something, no spaces.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const RESERVED_EXTENSIONS = /\.(json|xml|html|htm|js|css|png|jpg|jpeg|gif|svg|ico|txt|csv|pdf|zip|gz|tar|atom|rss|git)$/i;
const THEMES = { min: 1, max: 11 };
const COLOR_SCHEMES = { min: 1, max: 6 };
export const PASSWORD_MAX = 128;
const MAX_INT = 2_147_483_647;

export const USERNAME_FORMAT = NAMESPACE_FORMAT_MESSAGE;

export interface UserFields {
  username?: string;
  name?: string;
  email?: string;
  password?: string;
  projects_limit?: number;
  theme_id?: number;
  color_scheme_id?: number;
  bio?: string;
  location?: string;
  organization?: string;
  job_title?: string;
  website_url?: string;
  note?: string;
}

export function validateUsername(username: string, errors: FieldErrors): void {
  if (username.trim() === '') addError(errors, 'username', BLANK);
  if (username.length > 255) addError(errors, 'username', tooLong(255));
  else if (username.length < 2) addError(errors, 'username', tooShort(2));
  if (!isNamespaceFormat(username)) addError(errors, 'username', USERNAME_FORMAT);
  if (isReservedPath(username, true)) addError(errors, 'username', `${username} is a reserved name`);
  else if (RESERVED_EXTENSIONS.test(username) && !/\.(git|atom)$/i.test(username)) {
    addError(errors, 'username', 'ending with a reserved file extension is not allowed.');
  }
}

/**
 * Checks the fields given; `creating` requires name, username and email. Passwords need the
 * instance's minimum_password_length.
 */
export function validateUser(fields: UserFields, creating: boolean, passwordMinimum = 8): FieldErrors {
  const errors: FieldErrors = {};
  if (fields.name !== undefined || creating) {
    const name = fields.name ?? '';
    if (name.trim() === '') addError(errors, 'name', BLANK);
    if (name.length > 255) addError(errors, 'name', tooLong(255));
  }
  if (fields.username !== undefined || creating) validateUsername(fields.username ?? '', errors);
  if (fields.email !== undefined || creating) {
    const email = fields.email ?? '';
    if (email.trim() === '') addError(errors, 'email', BLANK);
    else if (!EMAIL.test(email) || email.length > 255) addError(errors, 'email', INVALID);
  }
  if (fields.password !== undefined) {
    if (fields.password.length < passwordMinimum) addError(errors, 'password', tooShort(passwordMinimum));
    if (fields.password.length > PASSWORD_MAX) addError(errors, 'password', tooLong(PASSWORD_MAX));
  }
  if (fields.projects_limit !== undefined) {
    if (fields.projects_limit < 0) addError(errors, 'projects_limit', atLeast(0));
    if (fields.projects_limit > MAX_INT) addError(errors, 'projects_limit', atMost(MAX_INT));
  }
  if (fields.theme_id !== undefined && (fields.theme_id < THEMES.min || fields.theme_id > THEMES.max)) {
    addError(errors, 'theme_id', `${fields.theme_id} is not a valid theme`);
  }
  if (fields.color_scheme_id !== undefined && (fields.color_scheme_id < COLOR_SCHEMES.min || fields.color_scheme_id > COLOR_SCHEMES.max)) {
    addError(errors, 'color_scheme_id', `${fields.color_scheme_id} is not a valid color scheme`);
  }
  if (fields.bio !== undefined && fields.bio.length > 255) addError(errors, 'bio', tooLong(255));
  for (const key of ['location', 'organization', 'job_title', 'website_url'] as const) {
    const v = fields[key];
    if (v !== undefined && v.length > 255) addError(errors, key, tooLong(255));
  }
  if (fields.note !== undefined && fields.note.length > 1000) addError(errors, 'note', tooLong(1000));
  return errors;
}
