// A commit status's own rules, in the platform's words: a name, a target URL the platform's URL
// blocker lets through (http or https; local addresses allowed, nothing resolved), and texts of at
// most 255 characters as later releases bound them (14.x bounded only the URL), so that a status
// cannot carry megabytes into every list.
import type { FieldErrors } from '../../core/errors.ts';
import { blockedUrlMessage } from '../../domain/url-blocker.ts';
import { BLANK, addError, tooLong } from '../../domain/validation.ts';

const MAX_LENGTH = 255;
const TARGET_URL_SCHEMES = ['http', 'https'];

const blank = (value: string) => value.trim() === '';
const longerThan = (value: string, max: number) => [...value].length > max;

export interface CommitStatusFields {
  name: string;
  /** As given: a ref found from the commit is a branch name already. */
  ref?: string;
  targetUrl?: string;
  description?: string;
}

export function commitStatusErrors(fields: CommitStatusFields): FieldErrors {
  const errors: FieldErrors = {};
  if (blank(fields.name)) addError(errors, 'name', BLANK);
  if (longerThan(fields.name, MAX_LENGTH)) addError(errors, 'name', tooLong(MAX_LENGTH));
  if (fields.ref !== undefined && blank(fields.ref)) addError(errors, 'ref', BLANK);
  if (fields.ref !== undefined && longerThan(fields.ref, MAX_LENGTH)) addError(errors, 'ref', tooLong(MAX_LENGTH));
  if (fields.targetUrl !== undefined) {
    const blocked = blockedUrlMessage(fields.targetUrl, TARGET_URL_SCHEMES);
    if (blocked) addError(errors, 'target_url', blocked);
    if (longerThan(fields.targetUrl, MAX_LENGTH)) addError(errors, 'target_url', tooLong(MAX_LENGTH));
  }
  if (fields.description !== undefined && longerThan(fields.description, MAX_LENGTH)) addError(errors, 'description', tooLong(MAX_LENGTH));
  return errors;
}
