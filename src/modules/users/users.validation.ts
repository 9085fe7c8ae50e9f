// Model validation of a user, with the platform's messages, collected per field.
import type { FieldErrors } from '../../core/errors.ts';
import { NAMESPACE_FORMAT_MESSAGE, isNamespaceFormat, isReservedPath } from '../namespaces/namespace-paths.ts';

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

function add(errors: FieldErrors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

export function validateUsername(username: string, errors: FieldErrors): void {
  if (username.trim() === '') add(errors, 'username', "can't be blank");
  if (username.length > 255) add(errors, 'username', 'is too long (maximum is 255 characters)');
  else if (username.length < 2) add(errors, 'username', 'is too short (minimum is 2 characters)');
  if (!isNamespaceFormat(username)) add(errors, 'username', USERNAME_FORMAT);
  if (isReservedPath(username, true)) add(errors, 'username', `${username} is a reserved name`);
  else if (RESERVED_EXTENSIONS.test(username) && !/\.(git|atom)$/i.test(username)) {
    add(errors, 'username', 'ending with a reserved file extension is not allowed.');
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
    if (name.trim() === '') add(errors, 'name', "can't be blank");
    if (name.length > 255) add(errors, 'name', 'is too long (maximum is 255 characters)');
  }
  if (fields.username !== undefined || creating) validateUsername(fields.username ?? '', errors);
  if (fields.email !== undefined || creating) {
    const email = fields.email ?? '';
    if (email.trim() === '') add(errors, 'email', "can't be blank");
    else if (!EMAIL.test(email) || email.length > 255) add(errors, 'email', 'is invalid');
  }
  if (fields.password !== undefined) {
    if (fields.password.length < passwordMinimum) add(errors, 'password', `is too short (minimum is ${passwordMinimum} characters)`);
    if (fields.password.length > PASSWORD_MAX) add(errors, 'password', `is too long (maximum is ${PASSWORD_MAX} characters)`);
  }
  if (fields.projects_limit !== undefined) {
    if (fields.projects_limit < 0) add(errors, 'projects_limit', 'must be greater than or equal to 0');
    if (fields.projects_limit > MAX_INT) add(errors, 'projects_limit', `must be less than or equal to ${MAX_INT}`);
  }
  if (fields.theme_id !== undefined && (fields.theme_id < THEMES.min || fields.theme_id > THEMES.max)) {
    add(errors, 'theme_id', `${fields.theme_id} is not a valid theme`);
  }
  if (fields.color_scheme_id !== undefined && (fields.color_scheme_id < COLOR_SCHEMES.min || fields.color_scheme_id > COLOR_SCHEMES.max)) {
    add(errors, 'color_scheme_id', `${fields.color_scheme_id} is not a valid color scheme`);
  }
  if (fields.bio !== undefined && fields.bio.length > 255) add(errors, 'bio', 'is too long (maximum is 255 characters)');
  for (const key of ['location', 'organization', 'job_title', 'website_url'] as const) {
    const v = fields[key];
    if (v !== undefined && v.length > 255) add(errors, key, 'is too long (maximum is 255 characters)');
  }
  if (fields.note !== undefined && fields.note.length > 1000) add(errors, 'note', 'is too long (maximum is 1000 characters)');
  return errors;
}
