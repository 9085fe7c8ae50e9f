// needs (entry/needs.rb, entry/need.rb): job names or `{job, artifacts, optional}`; `{pipeline}` and
// `{project}` needs point outside this pipeline and are kept aside.
import type { CrossNeed, Need } from '../types.ts';
import { isHash } from '../yaml-loader.ts';
import { checkKeys, entryFail, isString } from './errors.ts';

export function needs(location: string, value: unknown): { jobs: Need[]; cross: CrossNeed[] } {
  if (!Array.isArray(value)) entryFail(location, 'config can only be a hash or an array');
  const jobs: Need[] = [];
  const cross: CrossNeed[] = [];
  for (const item of value) {
    const needLocation = `${location}:need`;
    if (isString(item)) {
      jobs.push({ name: item, artifacts: true, optional: false });
      continue;
    }
    if (!isHash(item)) entryFail(needLocation, 'has an unsupported type');
    if (item.project !== undefined || item.pipeline !== undefined) {
      checkKeys(needLocation, item, ['job', 'project', 'ref', 'artifacts', 'pipeline']);
      cross.push({ ...item });
      continue;
    }
    checkKeys(needLocation, item, ['job', 'artifacts', 'optional']);
    if (!isString(item.job)) entryFail(needLocation, 'job should be a string');
    if (item.artifacts !== undefined && typeof item.artifacts !== 'boolean') entryFail(needLocation, 'artifacts should be a boolean value');
    if (item.optional !== undefined && typeof item.optional !== 'boolean') entryFail(needLocation, 'optional should be a boolean value');
    jobs.push({ name: item.job, artifacts: item.artifacts !== false, optional: item.optional === true });
  }
  return { jobs, cross };
}
