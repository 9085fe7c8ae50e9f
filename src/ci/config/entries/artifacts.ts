// artifacts (entry/artifacts.rb, entry/reports.rb) and cache (entry/cache.rb), normalized.
import { parseDuration } from '../duration.ts';
import type { Artifacts, Cache } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { checkKeys, entryFail, isArrayOfStrings, isString } from './errors.ts';

const ARTIFACT_KEYS = ['name', 'untracked', 'paths', 'reports', 'when', 'expire_in', 'expose_as', 'exclude', 'public'];
export const REPORT_TYPES = [
  'junit', 'codequality', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'dast',
  'performance', 'browser_performance', 'load_performance', 'license_management', 'license_scanning', 'metrics',
  'terraform', 'accessibility', 'cluster_applications', 'requirements', 'coverage_fuzzing', 'api_fuzzing',
  'cluster_image_scanning', 'dotenv', 'cobertura',
];
const ARTIFACT_WHEN = ['on_success', 'on_failure', 'always'];

export function artifacts(location: string, value: unknown): Artifacts {
  if (!isHash(value)) entryFail(location, 'config should be a hash');
  checkKeys(location, value, ARTIFACT_KEYS);
  const out: Artifacts = {};
  if (value.name !== undefined) {
    if (!isString(value.name)) entryFail(location, 'name should be a string');
    out.name = value.name;
  }
  if (value.untracked !== undefined) {
    if (typeof value.untracked !== 'boolean') entryFail(location, 'untracked should be a boolean value');
    out.untracked = value.untracked;
  }
  for (const key of ['paths', 'exclude'] as const) {
    if (value[key] === undefined) continue;
    if (!isArrayOfStrings(value[key])) entryFail(location, `${key} should be an array of strings`);
    out[key] = value[key] as string[];
  }
  if (value.when !== undefined) {
    if (!isString(value.when) || !ARTIFACT_WHEN.includes(value.when)) {
      entryFail(location, 'when should be on_success, on_failure or always');
    }
    out.when = value.when;
  }
  if (value.expire_in !== undefined) {
    if (parseDuration(value.expire_in) === null) entryFail(location, 'expire in should be a duration');
    out.expire_in = String(value.expire_in);
  }
  if (value.expose_as !== undefined) {
    if (!isString(value.expose_as)) entryFail(location, 'expose as should be a string');
    if (!out.paths) entryFail(location, "expose as can't be blank when paths are not defined");
    out.expose_as = value.expose_as;
  }
  if (value.public !== undefined) {
    if (typeof value.public !== 'boolean') entryFail(location, 'public should be a boolean value');
    out.public = value.public;
  }
  if (value.reports !== undefined) out.reports = reports(`${location}:reports`, value.reports);
  return out;
}

function reports(location: string, value: unknown): Record<string, string[]> {
  if (!isHash(value)) entryFail(location, 'config should be a hash');
  checkKeys(location, value, REPORT_TYPES);
  const out: Record<string, string[]> = {};
  for (const [type, paths] of Object.entries(value)) {
    const list = isString(paths) ? [paths] : paths;
    if (!isArrayOfStrings(list)) entryFail(location, `${type} should be an array of strings or a string`);
    out[type] = list;
  }
  return out;
}

const CACHE_KEYS = ['key', 'untracked', 'paths', 'when', 'policy'];
const CACHE_POLICIES = ['pull-push', 'push', 'pull'];

export function caches(location: string, value: unknown): Cache[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 4) entryFail(location, 'config no more than 4 caches can be created');
  return list.map((item) => cache(location, item));
}

function cache(location: string, value: unknown): Cache {
  if (!isHash(value)) entryFail(location, 'config should be a hash');
  checkKeys(location, value, CACHE_KEYS);
  const out: Cache = { key: cacheKey(`${location}:key`, value.key), policy: 'pull-push', when: 'on_success' };
  if (value.paths !== undefined) {
    if (!isArrayOfStrings(value.paths)) entryFail(`${location}:paths`, 'config should be an array of strings');
    out.paths = value.paths;
  }
  if (value.untracked !== undefined) {
    if (typeof value.untracked !== 'boolean') entryFail(location, 'untracked should be a boolean value');
    out.untracked = value.untracked;
  }
  if (value.policy !== undefined) {
    if (!isString(value.policy) || !CACHE_POLICIES.includes(value.policy)) {
      entryFail(location, 'policy should be pull-push, push, or pull');
    }
    out.policy = value.policy;
  }
  if (value.when !== undefined) {
    if (!isString(value.when) || !ARTIFACT_WHEN.includes(value.when)) {
      entryFail(location, 'when should be one of: on_success, on_failure, always');
    }
    out.when = value.when;
  }
  return out;
}

function cacheKey(location: string, value: unknown): Cache['key'] {
  if (value === undefined || value === null) return 'default';
  if (typeof value === 'number') return String(value);
  if (isString(value)) {
    if (value.includes('/') || value.includes('%2F')) entryFail(location, 'config cannot contain the "/" character');
    if (value === '.' || value === '%2E' || value === '..' || value === '%2E%2E') entryFail(location, 'config cannot be "." or ".."');
    return value;
  }
  if (!isHash(value)) entryFail(location, 'config should be a hash, a string or a symbol');
  checkKeys(location, value, ['files', 'prefix']);
  if (!isArrayOfStrings(value.files) || value.files.length < 1 || value.files.length > 2) {
    entryFail(`${location}:files`, 'config has to be an array of one or two strings');
  }
  const out: { files: string[]; prefix?: string } = { files: value.files };
  if (value.prefix !== undefined) {
    if (!isString(value.prefix)) entryFail(`${location}:prefix`, 'config should be a string');
    out.prefix = value.prefix;
  }
  return out;
}
