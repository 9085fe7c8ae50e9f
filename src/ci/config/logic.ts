// The platform's logical checks after entry validation (yaml_processor.rb): each job's stage exists,
// its dependencies and needs name jobs of the same or an earlier stage, environments' on_stop jobs
// fit, and needs form no cycle.
import { configError } from './errors.ts';
import { expandParallel } from './parallel.ts';
import type { CompiledJob } from './types.ts';

export function checkJobs(jobs: readonly CompiledJob[], stages: readonly string[]): void {
  const byName = jobIndex(jobs);
  for (const job of jobs) {
    const display = expandParallel(job.name, job.parallel)?.[0]?.name ?? job.name;
    if (!stages.includes(job.stage)) {
      configError(`${display} job: chosen stage does not exist; available stages are ${stages.join(', ')}`);
    }
    for (const dependency of job.dependencies ?? []) checkReference(display, job, dependency, 'dependency', byName, stages);
    for (const need of job.needs ?? []) checkReference(display, job, need.name, 'need', byName, stages);
    checkEnvironment(display, job, byName);
  }
  checkCycles(jobs, byName);
}

/** Every name a need may use: plain jobs, parallel jobs by their base name and by each instance. */
export function jobIndex(jobs: readonly CompiledJob[]): Map<string, CompiledJob> {
  const byName = new Map<string, CompiledJob>();
  for (const job of jobs) {
    byName.set(job.name, job);
    for (const instance of expandParallel(job.name, job.parallel) ?? []) byName.set(instance.name, job);
  }
  return byName;
}

function checkReference(
  display: string,
  job: CompiledJob,
  name: string,
  kind: 'dependency' | 'need',
  byName: Map<string, CompiledJob>,
  stages: readonly string[],
): void {
  const target = byName.get(name);
  if (!target) configError(`${display} job: undefined ${kind}: ${name}`);
  const targetIndex = stages.indexOf(target.stage);
  if (targetIndex < 0 || targetIndex > stages.indexOf(job.stage)) {
    configError(`${display} job: ${kind} ${name} is not defined in current or prior stages`);
  }
}

function checkEnvironment(display: string, job: CompiledJob, byName: Map<string, CompiledJob>): void {
  const onStop = job.environment?.on_stop;
  if (!onStop || !job.environment) return;
  const stopJob = byName.get(onStop);
  if (!stopJob) configError(`${display} job: on_stop job ${onStop} is not defined`);
  if (!stopJob.environment) configError(`${display} job: on_stop job ${onStop} does not have environment defined`);
  if (stopJob.environment.name !== job.environment.name) configError(`${display} job: on_stop job ${onStop} have different environment name`);
  if (stopJob.environment.action !== 'stop') configError(`${display} job: on_stop job ${onStop} needs to have action stop defined`);
}

/** Needs may point within a stage, so they can loop; the platform refuses any loop. */
function checkCycles(jobs: readonly CompiledJob[], byName: Map<string, CompiledJob>): void {
  const state = new Map<CompiledJob, 1 | 2>();
  for (const start of jobs) {
    if (state.has(start)) continue;
    const stack: Array<[CompiledJob, number]> = [[start, 0]];
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const need = top[0].needs?.[top[1]++];
      if (need === undefined) {
        state.set(top[0], 2);
        stack.pop();
        continue;
      }
      const next = byName.get(need.name);
      if (!next) continue;
      if (state.get(next) === 1) configError('The pipeline has circular dependencies');
      if (!state.has(next)) {
        state.set(next, 1);
        stack.push([next, 0]);
      }
    }
  }
}
