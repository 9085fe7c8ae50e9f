// Environment scopes (`*`, a name, or a pattern with `*`), which CI/CD variables and clusters carry,
// in the platform's words (14.x HasEnvironmentScope). The column is 255 characters wide.
import type { FieldErrors } from '../core/errors.ts';
import { BLANK, addError, tooLong } from './validation.ts';

const ENVIRONMENT_SCOPE = /^[a-zA-Z0-9_\\/${}. \-*]+$/;

/** Adds the scope's failures to `errors` under environment_scope. */
export function environmentScopeErrors(errors: FieldErrors, scope: string): void {
  if (scope.trim() === '') addError(errors, 'environment_scope', BLANK);
  if (scope.length > 255) addError(errors, 'environment_scope', tooLong(255));
  if (scope !== '' && !ENVIRONMENT_SCOPE.test(scope)) {
    addError(errors, 'environment_scope', "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces");
  }
}
