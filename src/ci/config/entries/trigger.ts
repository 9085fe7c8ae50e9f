// trigger (entry/trigger.rb) and environment (entry/environment.rb), normalized to mappings.
import type { Environment, Trigger } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { checkKeys, entryFail, isString } from './errors.ts';

export function trigger(location: string, value: unknown): Trigger {
  if (isString(value)) return { project: value };
  if (!isHash(value)) entryFail(location, 'has to be either a string or a hash');
  const out: Trigger = {};
  if (value.include !== undefined) {
    checkKeys(location, value, ['include', 'strategy', 'forward']);
    out.include = childIncludes(`${location}:include`, value.include);
  } else {
    checkKeys(location, value, ['project', 'branch', 'strategy', 'forward']);
    if (!isString(value.project)) entryFail(location, 'project should be a string');
    out.project = value.project;
    if (value.branch !== undefined) {
      if (!isString(value.branch)) entryFail(location, 'branch should be a string');
      out.branch = value.branch;
    }
  }
  if (value.strategy !== undefined) {
    if (value.strategy !== 'depend') entryFail(location, 'strategy should be depend');
    out.strategy = 'depend';
  }
  if (value.forward !== undefined) {
    if (!isHash(value.forward)) entryFail(`${location}:forward`, 'config should be a hash');
    checkKeys(`${location}:forward`, value.forward, ['yaml_variables', 'pipeline_variables']);
    out.forward = value.forward as Trigger['forward'];
  }
  return out;
}

/** A child pipeline's include: a local path or up to 3 of local / template / artifact+job / project+file. */
function childIncludes(location: string, value: unknown): Array<Record<string, string>> {
  const list = Array.isArray(value) ? value : [value];
  if (list.length > 3) entryFail(location, 'config must be less than or equal to 3');
  return list.map((item) => {
    if (isString(item)) return { local: item };
    if (!isHash(item)) entryFail(location, 'config should be a hash or a string');
    checkKeys(location, item, ['local', 'template', 'artifact', 'job', 'project', 'file', 'ref']);
    const out: Record<string, string> = {};
    for (const [key, part] of Object.entries(item)) {
      if (!isString(part)) entryFail(location, `${key} should be a string`);
      out[key] = part;
    }
    return out;
  });
}

const ENVIRONMENT_KEYS = ['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier'];
const ENVIRONMENT_ACTIONS = ['start', 'prepare', 'stop'];
/** The tiers an environment may declare (`deployment_tier`). */
export const DEPLOYMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'] as const;

export function environment(location: string, value: unknown): Environment {
  if (isString(value)) return { name: value, action: 'start' };
  if (!isHash(value)) entryFail(location, 'config should be a hash or a string');
  checkKeys(location, value, ENVIRONMENT_KEYS);
  if (!isString(value.name) || value.name === '') entryFail(location, "name can't be blank");
  const out: Environment = { name: value.name, action: 'start' };
  for (const key of ['url', 'on_stop', 'auto_stop_in'] as const) {
    if (value[key] === undefined) continue;
    if (!isString(value[key])) entryFail(location, `${key} should be a string`);
    out[key] = value[key] as string;
  }
  if (value.action !== undefined) {
    if (!isString(value.action) || !ENVIRONMENT_ACTIONS.includes(value.action)) {
      entryFail(location, 'action should be start, stop or prepare');
    }
    out.action = value.action;
  }
  if (value.deployment_tier !== undefined) {
    if (!isString(value.deployment_tier) || !DEPLOYMENT_TIERS.some((tier) => tier === value.deployment_tier)) {
      entryFail(location, `deployment tier must be one of ${DEPLOYMENT_TIERS.join(', ')}`);
    }
    out.deployment_tier = value.deployment_tier;
  }
  if (value.kubernetes !== undefined) {
    if (!isHash(value.kubernetes)) entryFail(`${location}:kubernetes`, 'config should be a hash');
    out.kubernetes = value.kubernetes;
  }
  return out;
}
