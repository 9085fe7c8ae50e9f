// Atomic pipeline processing (`Ci::PipelineProcessing::AtomicProcessingService`, its StatusCollection
// and `Ci::ProcessBuildService`) as a pure function. The platform re-runs processing after every job
// transition; here the whole cascade is applied in memory, so the caller writes the result once.
import { compositeStatus } from './composite.ts';
import { type JobChange, type PipelineJob, latestJobs } from './pipeline-job.ts';
import {
  type JobEvent,
  type PipelineStatusChange,
  type Status,
  isCompleted,
  jobTransition,
  jobTransitionTimestamps,
  setPipelineStatus,
} from './status.ts';

export { type JobChange, type JobWhen, type PipelineJob, type SchedulingType, applyJobChanges, latestJobs } from './pipeline-job.ts';
export { enqueueDueScheduled } from './scheduled.ts';
export { type ResourceGroupJob, assignResources, busyResourceGroups } from './resource-groups.ts';
export {
  type AutoRetryDecision,
  type RetryConfig,
  type RetryJobPlan,
  type RetryPipelinePlan,
  autoRetryDecision,
  isRetryable,
  retryJobPlan,
  retryPipelinePlan,
} from './retry.ts';
export { cancelJobChange, cancelPipelineChanges } from './cancel.ts';
export { type TimedJob, pipelineCoverage, pipelineDuration, pipelineQueuedDuration } from './pipeline-metrics.ts';

export interface StageStatus {
  stageIdx: number;
  status: Status;
}

export interface ProcessingResult {
  /** Job transitions to write, in the order they happened. At most one per job. */
  changes: JobChange[];
  /** All given jobs with the changes applied. */
  jobs: PipelineJob[];
  /** Composite status of each stage that has latest jobs, by stage index. */
  stages: StageStatus[];
  /**
   * Composite status of the pipeline's latest jobs; null when it has none (the platform does not
   * process such a pipeline: a `[ci skip]` pipeline keeps its status).
   */
  pipelineStatus: Status | null;
  /** The pipeline transition `set_status` makes, when the current status was given. */
  pipelineChange: PipelineStatusChange | null;
}

export interface ProcessingOptions {
  /** The pipeline's current status, to compute `pipelineChange`. */
  pipelineStatus?: Status;
}

/** Composite of a set of jobs, or `success` when it is empty (StatusCollection#status_for_array). */
function statusOf(jobs: readonly PipelineJob[], dag = false): Status {
  return compositeStatus(jobs, { dag }) ?? 'success';
}

/** Previous statuses under which a job runs rather than being skipped (`valid_statuses_for_build`). */
function validPreviousStatuses(job: PipelineJob): readonly Status[] {
  switch (job.when) {
    case 'on_success':
    case 'manual':
    case 'delayed':
      return job.schedulingType === 'dag' ? ['success'] : ['success', 'skipped'];
    case 'on_failure':
      return ['failed'];
    case 'always':
      return ['success', 'failed', 'skipped'];
    default:
      return [];
  }
}

function isSchedulable(job: PipelineJob): boolean {
  return job.when === 'delayed' && job.startInSeconds !== undefined && job.startInSeconds !== null;
}

/** The event ProcessBuildService sends to a created job whose predecessors are complete. */
function eventFor(job: PipelineJob, previous: Status): JobEvent {
  if (!validPreviousStatuses(job).includes(previous)) return 'skip';
  if (isSchedulable(job)) return 'schedule';
  if (job.when === 'manual' || job.when === 'delayed') return 'actionize';
  return 'enqueue';
}

/** Created jobs of one stage, needed ones first (the platform's `Dag.order`, stable by input order). */
function orderByNeeds(jobs: readonly PipelineJob[]): PipelineJob[] {
  const byName = new Map(jobs.map((job) => [job.name, job]));
  const ordered: PipelineJob[] = [];
  const visited = new Set<string>();
  const visit = (job: PipelineJob) => {
    if (visited.has(job.name)) return;
    visited.add(job.name); // marked before its needs: a cycle (refused by the compiler) cannot loop
    for (const need of job.needs ?? []) {
      const needed = byName.get(need);
      if (needed) visit(needed);
    }
    ordered.push(job);
  };
  for (const job of jobs) visit(job);
  return ordered;
}

interface PassState {
  latest: PipelineJob[];
  byName: Map<string, PipelineJob>;
  changes: JobChange[];
}

function previousStatus(state: PassState, job: PipelineJob): Status {
  if (job.schedulingType === 'dag') {
    const needed: PipelineJob[] = [];
    for (const name of job.needs ?? []) {
      const found = state.byName.get(name);
      if (found) needed.push(found);
    }
    return statusOf(needed, true);
  }
  return statusOf(state.latest.filter((other) => other.stageIdx < job.stageIdx));
}

function processJob(state: PassState, job: PipelineJob, now: Date): void {
  const previous = previousStatus(state, job);
  if (!isCompleted(previous)) return;
  const event = eventFor(job, previous);
  const to = jobTransition(job.status, event, { resourceGroup: job.resourceGroup !== null });
  if (to === null) return;
  const scheduledAt = event === 'schedule' ? new Date(now.getTime() + (job.startInSeconds ?? 0) * 1000) : undefined;
  const change: JobChange = { id: job.id, from: job.status, to, event, ...jobTransitionTimestamps(job.status, to, now, scheduledAt) };
  state.changes.push(change);
  job.status = to;
  if (change.scheduledAt !== undefined) job.scheduledAt = change.scheduledAt;
}

/** One processing pass over the stages in order; true when a job changed. */
function processOnce(state: PassState, stageIndexes: readonly number[], now: Date): boolean {
  const before = state.changes.length;
  for (const stageIdx of stageIndexes) {
    const created = state.latest.filter((job) => job.stageIdx === stageIdx && job.status === 'created');
    for (const job of orderByNeeds(created)) processJob(state, job, now);
  }
  return state.changes.length > before;
}

/**
 * Processes a pipeline: every created latest job whose predecessors are complete is enqueued,
 * made manual, scheduled or skipped, repeatedly until nothing changes (a skip can unblock jobs of
 * earlier stages that need the skipped job). Returns the transitions and the resulting statuses.
 */
export function processPipeline(
  jobs: readonly PipelineJob[],
  now: Date,
  options: ProcessingOptions = {},
): ProcessingResult {
  const copies = jobs.map((job) => ({ ...job }));
  const latest = latestJobs(copies);
  const byName = new Map<string, PipelineJob>();
  for (const job of [...latest].sort((a, b) => a.stageIdx - b.stageIdx)) byName.set(job.name, job);
  const state: PassState = { latest, byName, changes: [] };
  const stageIndexes = [...new Set(latest.map((job) => job.stageIdx))].sort((a, b) => a - b);

  // Every pass moves at least one job out of `created`, so this ends within jobs + 1 passes.
  for (let pass = 0; pass <= latest.length && processOnce(state, stageIndexes, now); pass++);

  const stages = stageIndexes.map((stageIdx) => ({
    stageIdx,
    status: statusOf(latest.filter((job) => job.stageIdx === stageIdx)),
  }));
  const pipelineStatus = latest.length === 0 ? null : statusOf(latest);
  const pipelineChange =
    pipelineStatus !== null && options.pipelineStatus !== undefined
      ? setPipelineStatus(options.pipelineStatus, pipelineStatus)
      : null;
  return { changes: state.changes, jobs: copies, stages, pipelineStatus, pipelineChange };
}
