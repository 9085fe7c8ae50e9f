// What a stored CI/CD variable may hold, in the platform's words (14.x Ci::HasVariable, Ci::Maskable,
// HasEnvironmentScope): the key's characters and length, the value a masked variable needs (one
// line of at least 8 characters the runner can find in a log), and environment scopes (whose rules
// clusters share: domain/environment-scope.ts). Pure: the uniqueness of a key is the caller's to check.
import type { FieldErrors } from '../core/errors.ts';
import { environmentScopeErrors } from '../domain/environment-scope.ts';
import { BLANK, INVALID, addError, tooLong } from '../domain/validation.ts';

export const VARIABLE_TYPES = ['env_var', 'file'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

const KEY = /^[a-zA-Z0-9_]+$/;
const MASKABLE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
/** Instance variables only (Ci::InstanceVariable). */
export const INSTANCE_VALUE_LIMIT = 10_000;

export interface VariableFields {
  key: string;
  value: string;
  masked: boolean;
  environmentScope?: string;
}

/** "(KEY) has already been taken": the platform's message for a key its owner already has. */
export const keyTaken = (key: string) => `(${key}) has already been taken`;

export function keyErrors(errors: FieldErrors, key: string): void {
  if (key.trim() === '') addError(errors, 'key', BLANK);
  if (key.length > 255) addError(errors, 'key', tooLong(255));
  if (!KEY.test(key)) addError(errors, 'key', "can contain only letters, digits and '_'.");
}

/** The validation errors of a variable, by field (empty when valid). */
export function variableErrors(v: VariableFields, options: { valueLimit?: number } = {}): FieldErrors {
  const errors: FieldErrors = {};
  keyErrors(errors, v.key);
  if (options.valueLimit !== undefined && v.value.length > options.valueLimit) {
    addError(errors, 'value', `The value of the provided variable exceeds the ${options.valueLimit} character limit`);
  }
  if (v.masked && !MASKABLE.test(v.value)) addError(errors, 'value', INVALID);
  if (v.environmentScope !== undefined) environmentScopeErrors(errors, v.environmentScope);
  return errors;
}
