// Small job keywords: allow_failure, retry, timeout, coverage, parallel, inherit, tags.
import { MONTH_SECONDS, parseDuration } from '../duration.ts';
import { compileRubyRegex } from '../regex.ts';
import type { Parallel, Retry } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { attributeFail, checkKeys, entryFail, isAlphanumeric, isArrayOfStrings, isString } from './errors.ts';

export const RETRY_REASONS = [
  'always', 'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure',
  'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites',
  'scheduler_failure', 'data_integrity_failure',
];
export const MAX_PARALLEL = 200;

export function allowFailure(location: string, value: unknown): { value: boolean; exitCodes: number[] | null } {
  if (typeof value === 'boolean') return { value, exitCodes: null };
  if (!isHash(value)) attributeFail(location, 'allow_failure', 'should be a hash or a boolean value');
  checkKeys(`${location}:allow_failure`, value, ['exit_codes']);
  const codes = Array.isArray(value.exit_codes) ? value.exit_codes : [value.exit_codes];
  if (!codes.every((code) => typeof code === 'number' && Number.isInteger(code))) {
    entryFail(`${location}:allow_failure`, 'exit codes should be an array of integers or an integer');
  }
  return { value: false, exitCodes: codes as number[] };
}

export function retry(location: string, value: unknown): Retry {
  const checkMax = (max: unknown) => {
    if (typeof max !== 'number' || !Number.isInteger(max)) entryFail(location, 'config should be an integer or a hash');
    if (max < 0) entryFail(location, 'config must be greater than or equal to 0');
    if (max > 2) entryFail(location, 'config must be less than or equal to 2');
    return max;
  };
  if (typeof value === 'number') return { max: checkMax(value), when: ['always'] };
  if (!isHash(value)) entryFail(location, 'config should be an integer or a hash');
  checkKeys(location, value, ['max', 'when']);
  const max = value.max === undefined ? 0 : checkMax(value.max);
  let when = ['always'];
  if (value.when !== undefined) {
    when = isString(value.when) ? [value.when] : (value.when as string[]);
    if (!isArrayOfStrings(when)) entryFail(location, 'when should be an array of strings or a string');
    const unknown = when.filter((reason) => !RETRY_REASONS.includes(reason));
    if (unknown.length > 0) entryFail(location, `when contains unknown values: ${unknown.join(', ')}`);
  }
  return { max, when };
}

export function timeout(location: string, value: unknown): number {
  const seconds = parseDuration(value);
  if (seconds === null || seconds === 'never') attributeFail(location, 'timeout', 'should be a duration');
  if (seconds > MONTH_SECONDS) attributeFail(location, 'timeout', 'should not exceed the limit');
  return seconds;
}

/** `/regex/` → the pattern without slashes. */
export function coverage(location: string, value: unknown): string {
  if (!isString(value) || !value.startsWith('/') || !value.endsWith('/') || value.length < 3 || !compileRubyRegex(value)) {
    entryFail(location, 'config must be a regular expression');
  }
  return value.slice(1, -1);
}

export function parallel(location: string, value: unknown): Parallel {
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) entryFail(location, 'config should be an integer or a hash');
    if (value < 2) entryFail(location, 'config must be greater than or equal to 2');
    if (value > MAX_PARALLEL) entryFail(location, `config must be less than or equal to ${MAX_PARALLEL}`);
    return value;
  }
  if (!isHash(value)) entryFail(location, 'config should be an integer or a hash');
  checkKeys(location, value, ['matrix']);
  const matrixLocation = `${location}:matrix`;
  if (!Array.isArray(value.matrix) || value.matrix.length === 0) entryFail(matrixLocation, 'config should be an array of hashes');
  const matrix = value.matrix.map((item) => {
    if (!isHash(item)) entryFail(matrixLocation, 'config should be an array of hashes');
    const row: Record<string, string[]> = {};
    for (const [key, values] of Object.entries(item)) {
      const list = Array.isArray(values) ? values : [values];
      if (list.length === 0 || !list.every(isAlphanumeric)) {
        entryFail(`${matrixLocation}:variables`, 'config should be a hash of key value pairs');
      }
      row[key] = list.map(String);
    }
    if (Object.keys(row).length === 0) entryFail(`${matrixLocation}:variables`, "config can't be blank");
    return row;
  });
  const total = matrix.reduce((sum, row) => sum + Object.values(row).reduce((n, values) => n * values.length, 1), 0);
  if (total > MAX_PARALLEL) entryFail(matrixLocation, `config generates too many jobs (maximum is ${MAX_PARALLEL})`);
  return { matrix };
}

export const DEFAULT_KEYS = [
  'after_script', 'artifacts', 'before_script', 'cache', 'image', 'interruptible', 'retry', 'services', 'tags', 'timeout',
];

export interface Inherit {
  default: boolean | string[];
  variables: boolean | string[];
}

export function inherit(location: string, value: unknown): Inherit {
  if (!isHash(value)) entryFail(location, 'config should be a hash');
  checkKeys(location, value, ['default', 'variables']);
  const part = (key: 'default' | 'variables'): boolean | string[] => {
    const item = value[key];
    if (item === undefined || item === null) return true;
    if (typeof item === 'boolean') return item;
    if (!isArrayOfStrings(item)) entryFail(`${location}:${key}`, 'config should be a boolean value or an array of strings');
    if (key === 'default') {
      const unknown = item.filter((name) => !DEFAULT_KEYS.includes(name));
      if (unknown.length > 0) entryFail(`${location}:${key}`, `config contains unknown values: ${unknown.join(', ')}`);
    }
    return item;
  };
  return { default: part('default'), variables: part('variables') };
}

export function tags(location: string, value: unknown): string[] {
  const list = value;
  if (!isArrayOfStrings(list)) entryFail(location, 'config should be an array of strings');
  if (list.length > 50) entryFail(location, 'config must be less than the limit of 50 tags');
  return list;
}
