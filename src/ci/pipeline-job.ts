// The shape of a pipeline's job that the pure CI libraries read, and how their plans are applied.
import { type JobEvent, type JobTimestamps, type Status } from './status.ts';

export type JobWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed';
export type SchedulingType = 'stage' | 'dag';

export interface PipelineJob {
  id: number;
  name: string;
  stageIdx: number;
  status: Status;
  when: JobWhen;
  allowFailure: boolean;
  schedulingType: SchedulingType;
  /** Names of the needed jobs (DAG jobs); null for stage-scheduled jobs. */
  needs: string[] | null;
  retried: boolean;
  resourceGroup: string | null;
  scheduledAt: Date | null;
  /**
   * `start_in` of a delayed job in seconds, as the config compiler parsed it (options[:start_in]).
   * A delayed job without it is not schedulable and becomes manual, as on the platform.
   */
  startInSeconds?: number | null;
}

/** One job transition to write: the row `id` goes `from` → `to`, with the timestamps it sets. */
export interface JobChange extends JobTimestamps {
  id: number;
  from: Status;
  to: Status;
  event: JobEvent;
}

/** The jobs after the changes (new objects for changed jobs; others kept as they are). */
export function applyJobChanges<J extends PipelineJob>(jobs: readonly J[], changes: readonly JobChange[]): J[] {
  const byId = new Map<number, JobChange>();
  for (const change of changes) byId.set(change.id, change);
  return jobs.map((job) => {
    const change = byId.get(job.id);
    if (!change) return job;
    const next = { ...job, status: change.to };
    if (change.scheduledAt !== undefined) next.scheduledAt = change.scheduledAt;
    return next;
  });
}

/** The latest (non-retried) jobs: the only ones processing, statuses and reports look at. */
export function latestJobs<J extends { retried: boolean }>(jobs: readonly J[]): J[] {
  return jobs.filter((job) => !job.retried);
}
