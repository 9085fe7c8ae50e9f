// One job or bridge (entry/job.rb, entry/bridge.rb, entry/processable.rb): its keys checked in the
// platform's order and words, `default:` applied through `inherit:`, everything normalized.
import { parseDuration, WEEK_SECONDS } from '../duration.ts';
import { configError } from '../errors.ts';
import type { Artifacts, Cache, CompiledJob, Image, Retry, Service } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { artifacts, caches } from './artifacts.ts';
import { commands } from './commands.ts';
import { attributeFail, checkKeys, entryFail, isArrayOfStrings, isString } from './errors.ts';
import { image, services } from './image.ts';
import { needs } from './needs.ts';
import { allowFailure, coverage, inherit, parallel, retry, tags, timeout } from './options.ts';
import { DEFAULT_ONLY, policy } from './policy.ts';
import { rules } from './rules.ts';
import { environment, trigger } from './trigger.ts';
import { variableDefinitions } from './variables.ts';

const PROCESSABLE_KEYS = [
  'extends', 'stage', 'only', 'except', 'rules', 'variables', 'inherit', 'allow_failure', 'when', 'needs', 'resource_group',
];
const JOB_KEYS = [
  'tags', 'script', 'image', 'services', 'start_in', 'artifacts', 'cache', 'dependencies', 'before_script', 'after_script',
  'environment', 'coverage', 'retry', 'parallel', 'interruptible', 'timeout', 'release', 'secrets', 'type',
  ...PROCESSABLE_KEYS,
];
const BRIDGE_KEYS = ['trigger', 'parallel', ...PROCESSABLE_KEYS];
const JOB_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
const BRIDGE_WHEN = ['on_success', 'on_failure', 'always', 'manual'];

/** `default:` (and the legacy top-level keys) after normalization. */
export interface Defaults {
  after_script?: string[];
  artifacts?: Artifacts;
  before_script?: string[];
  cache?: Cache[];
  image?: Image;
  interruptible?: boolean;
  retry?: Retry;
  services?: Service[];
  tags?: string[];
  timeout?: number;
}

export function compileJob(
  name: string,
  config: Record<string, unknown>,
  bridge: boolean,
  defaults: Defaults,
  hasWorkflowRules: boolean,
  warnings: string[],
): Omit<CompiledJob, 'stageIdx'> {
  const location = `jobs:${name}`;
  const has = (key: string) => config[key] !== undefined && config[key] !== null;
  const hasRules = has('rules');

  if (name.length > 255) entryFail(location, 'name is too long (maximum is 255 characters)');
  if (hasRules) {
    const present = ['only', 'except', 'start_in'].filter(has);
    if (present.length > 0) entryFail(location, `config key may not be used with \`rules\`: ${present.join(', ')}`);
  }
  checkKeys(location, config, bridge ? BRIDGE_KEYS : JOB_KEYS);
  if (has('extends') && !isString(config.extends) && !isArrayOfStrings(config.extends)) {
    attributeFail(location, 'extends', 'should be an array of strings or a string');
  }
  if (has('resource_group') && !isString(config.resource_group)) attributeFail(location, 'resource_group', 'should be a string');

  const script = bridge ? null : commands(`${location}:script`, config.script);
  if (script !== null && script.length === 0) attributeFail(location, 'script', "can't be blank");

  const allowedWhen = bridge ? BRIDGE_WHEN : JOB_WHEN;
  const when = has('when') ? config.when : 'on_success';
  if (!isString(when) || !allowedWhen.includes(when)) attributeFail(location, 'when', `should be one of: ${allowedWhen.join(', ')}`);
  if (has('dependencies') && !isArrayOfStrings(config.dependencies)) attributeFail(location, 'dependencies', 'should be an array of strings');
  const failure = has('allow_failure') ? allowFailure(location, config.allow_failure) : null;

  let startIn: string | null = null;
  if (when === 'delayed') {
    const seconds = parseDuration(config.start_in);
    if (seconds === null || seconds === 'never') attributeFail(location, 'start_in', 'should be a duration');
    if (seconds > WEEK_SECONDS) attributeFail(location, 'start_in', 'should not exceed the limit');
    startIn = String(config.start_in);
  } else if (has('start_in')) {
    attributeFail(location, 'start_in', 'must be blank');
  }

  const needed = has('needs') ? needs(`${location}:needs`, config.needs) : null;
  if (needed && has('dependencies')) {
    const names = new Set(needed.jobs.map((need) => need.name));
    const missing = (config.dependencies as string[]).filter((dependency) => !names.has(dependency));
    if (missing.length > 0) attributeFail(location, 'dependencies', `the ${missing.join(', ')} should be part of needs`);
  }

  const inherited = has('inherit') ? inherit(`${location}:inherit`, config.inherit) : { default: true, variables: true };
  const fromDefault = <K extends keyof Defaults>(key: K): Defaults[K] | undefined => {
    if (bridge) return undefined;
    const allowed = inherited.default === true || (Array.isArray(inherited.default) && inherited.default.includes(key));
    return allowed ? defaults[key] : undefined;
  };

  const stageValue = has('stage') ? config.stage : has('type') ? config.type : 'test';
  if (!isString(stageValue)) entryFail(`${location}:stage`, 'config should be a string');

  const jobRules = hasRules ? rules(`${location}:rules`, config.rules, false) : null;
  if (jobRules && !hasWorkflowRules) {
    const last = jobRules[jobRules.length - 1];
    if (last && Object.keys(last).length === 1 && last.when !== undefined && last.when !== 'never') {
      warnings.push(
        `${location} may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings`,
      );
    }
  }
  // The platform's default `only` applies unless rules or workflow:rules are used.
  const useDefaults = !jobRules && !hasWorkflowRules;
  const only = has('only') ? policy(`${location}:only`, config.only) : useDefaults ? { ...DEFAULT_ONLY, refs: [...(DEFAULT_ONLY.refs as string[])] } : null;
  const except = has('except') ? policy(`${location}:except`, config.except) : null;

  const pick = <T>(key: string, parse: (loc: string, value: unknown) => T): T | null =>
    has(key) ? parse(`${location}:${key}`, config[key]) : null;

  return {
    name,
    stage: stageValue,
    bridge,
    script,
    beforeScript: bridge ? null : (pick('before_script', commands) ?? fromDefault('before_script') ?? null),
    afterScript: bridge ? null : (pick('after_script', commands) ?? fromDefault('after_script') ?? null),
    image: pick('image', image) ?? fromDefault('image') ?? null,
    services: pick('services', services) ?? fromDefault('services') ?? null,
    variables: variableDefinitions(`${location}:variables`, config.variables, false),
    inheritVariables: inherited.variables,
    rules: jobRules,
    only: jobRules ? null : only,
    except: jobRules ? null : except,
    when,
    startIn,
    allowFailure: failure ? failure.value : when === 'manual',
    allowFailureDefined: failure !== null,
    allowFailureExitCodes: failure?.exitCodes ?? null,
    needs: needed ? needed.jobs : null,
    crossNeeds: needed ? needed.cross : [],
    dependencies: has('dependencies') ? (config.dependencies as string[]) : null,
    artifacts: pick('artifacts', artifacts) ?? fromDefault('artifacts') ?? null,
    cache: pick('cache', caches) ?? fromDefault('cache') ?? null,
    tags: pick('tags', tags) ?? fromDefault('tags') ?? null,
    retry: pick('retry', retry) ?? fromDefault('retry') ?? null,
    timeout: has('timeout') ? timeout(location, config.timeout) : (fromDefault('timeout') ?? null),
    coverage: pick('coverage', coverage),
    parallel: pick('parallel', parallel),
    trigger: bridge ? trigger(`${location}:trigger`, config.trigger) : null,
    environment: pick('environment', environment),
    interruptible: has('interruptible') ? interruptible(location, config.interruptible) : (fromDefault('interruptible') ?? null),
    resourceGroup: has('resource_group') ? (config.resource_group as string) : null,
    release: has('release') ? hashOf(`${location}:release`, config.release) : null,
    secrets: has('secrets') ? hashOf(`${location}:secrets`, config.secrets) : null,
  };
}

function interruptible(location: string, value: unknown): boolean {
  if (typeof value !== 'boolean') entryFail(`${location}:interruptible`, 'config should be a boolean value');
  return value;
}

function hashOf(location: string, value: unknown): Record<string, unknown> {
  if (!isHash(value)) entryFail(location, 'config should be a hash');
  return value;
}

/** `default:` and the legacy top-level keys, normalized; a key set in both places is an error. */
export function compileDefaults(root: Record<string, unknown>): Defaults {
  const section = root.default;
  const fromDefault = section === undefined || section === null ? {} : section;
  if (!isHash(fromDefault)) entryFail('default', 'config should be a hash');
  checkKeys('default', fromDefault, DEFAULT_SECTION_KEYS);
  const merged: Record<string, unknown> = { ...fromDefault };
  for (const key of LEGACY_GLOBAL_KEYS) {
    if (root[key] === undefined || root[key] === null) continue;
    if (merged[key] !== undefined && merged[key] !== null) {
      configError(`${key} is defined in top-level and \`default:\` entry`);
    }
    merged[key] = root[key];
  }
  const out: Defaults = {};
  const where = (key: string) => (isHash(fromDefault) && fromDefault[key] !== undefined ? `default:${key}` : key);
  const given = (key: string) => merged[key] !== undefined && merged[key] !== null;
  if (given('before_script')) out.before_script = commands(where('before_script'), merged.before_script);
  if (given('after_script')) out.after_script = commands(where('after_script'), merged.after_script);
  if (given('image')) out.image = image(where('image'), merged.image);
  if (given('services')) out.services = services(where('services'), merged.services);
  if (given('cache')) out.cache = caches(where('cache'), merged.cache);
  if (given('artifacts')) out.artifacts = artifacts('default:artifacts', merged.artifacts);
  if (given('retry')) out.retry = retry('default:retry', merged.retry);
  if (given('tags')) out.tags = tags('default:tags', merged.tags);
  if (given('timeout')) out.timeout = timeout('default', merged.timeout);
  if (given('interruptible')) out.interruptible = interruptible('default', merged.interruptible);
  return out;
}

const DEFAULT_SECTION_KEYS = [
  'after_script', 'artifacts', 'before_script', 'cache', 'image', 'interruptible', 'retry', 'services', 'tags', 'timeout',
];
export const LEGACY_GLOBAL_KEYS = ['before_script', 'image', 'services', 'after_script', 'cache'];
