// only / except (entry/policy.rb): a list of refs (names, keywords, /regexps/) or a mapping of
// refs, variables (expressions), changes (globs) and kubernetes.
import { expressionSyntaxError } from '../expressions.ts';
import type { Policy } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { checkKeys, entryFail, isArrayOfStrings, isString } from './errors.ts';

export const DEFAULT_ONLY: Readonly<Policy> = Object.freeze({ refs: ['branches', 'tags'] });

export function policy(location: string, value: unknown): Policy {
  if (Array.isArray(value)) return { refs: refs(location, value) };
  if (!isHash(value)) entryFail(location, 'has to be either an array of conditions or a hash');
  checkKeys(location, value, ['refs', 'kubernetes', 'variables', 'changes']);
  const out: Policy = {};
  if (value.refs !== undefined) out.refs = refs(`${location}:refs`, value.refs);
  if (value.variables !== undefined) {
    if (!isArrayOfStrings(value.variables)) entryFail(`${location}:variables`, 'config should be an array of valid expressions');
    if (value.variables.some((expression) => expressionSyntaxError(expression) !== null)) {
      entryFail(`${location}:variables`, 'config should be an array of valid expressions');
    }
    out.variables = value.variables;
  }
  if (value.changes !== undefined) {
    if (!isArrayOfStrings(value.changes)) entryFail(`${location}:changes`, 'config should be an array of strings');
    out.changes = value.changes;
  }
  if (value.kubernetes !== undefined) {
    if (value.kubernetes !== 'active') entryFail(`${location}:kubernetes`, 'config unknown value: kubernetes');
    out.kubernetes = 'active';
  }
  return out;
}

function refs(location: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((item) => isString(item))) {
    entryFail(location, 'config should be an array of strings or regular expressions');
  }
  // A `/…/` that RE2 rejects is compared as a plain name, as the platform's fallback does.
  return value as string[];
}
