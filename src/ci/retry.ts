// Retrying jobs and pipelines (14.x `Ci::RetryBuildService`, `Ci::AfterRequeueJobService`,
// `Ci::RetryPipelineService`) and automatic retries from `retry:` (`Gitlab::Ci::Build::AutoRetry`).
// Plans only: the caller inserts the clones (new ids), applies the changes, then processes.
import { type JobChange, type PipelineJob, latestJobs } from './pipeline-job.ts';
import { type JobTimestamps, type Status, jobTransition, jobTransitionTimestamps } from './status.ts';

/** A job as retry sees it: bridges (trigger jobs) are not retryable in 14.x. */
export type RetryCandidate = PipelineJob & { bridge?: boolean };

export interface RetryOptions {
  /** The pipeline is archived (project archived, or older than the instance's archive setting). */
  archived?: boolean;
}

const RETRYABLE_STATUSES: readonly Status[] = ['success', 'failed', 'canceled'];

/** `Ci::Build#retryable?`: finished (success, failed or canceled) and not archived. */
export function isRetryable(job: { status: Status; bridge?: boolean }, options: RetryOptions = {}): boolean {
  return job.bridge !== true && options.archived !== true && RETRYABLE_STATUSES.includes(job.status);
}

function processChange(job: PipelineJob, now: Date): JobChange {
  const to = jobTransition(job.status, 'process') as Status;
  return { id: job.id, from: job.status, to, event: 'process', ...jobTransitionTimestamps(job.status, to, now) };
}

/**
 * Skipped latest jobs that depend on `retried`: those of later stages, and DAG jobs that need it
 * (transitively: a skipped DAG job needing a reset one is reset too, so that no chain stays skipped).
 */
function dependentSkippedJobs(jobs: readonly PipelineJob[], retried: PipelineJob): PipelineJob[] {
  const skipped = latestJobs(jobs).filter((job) => job.status === 'skipped' && job.id !== retried.id);
  const chosen = new Set(skipped.filter((job) => job.stageIdx > retried.stageIdx));
  const reset = new Set([retried.name, ...[...chosen].map((job) => job.name)]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const job of skipped) {
      if (chosen.has(job) || job.schedulingType !== 'dag') continue;
      if ((job.needs ?? []).some((name) => reset.has(name))) {
        chosen.add(job);
        reset.add(job.name);
        grew = true;
      }
    }
  }
  return skipped.filter((job) => chosen.has(job)).sort((a, b) => a.stageIdx - b.stageIdx || a.id - b.id);
}

export interface RetryJobPlan {
  /** The job whose attributes the new record copies (`clone_accessors`; user = the retrying user). */
  cloneOf: number;
  /** The new record's status: it is enqueued at once (pending, or waiting_for_resource). */
  cloneStatus: Status;
  cloneTimestamps: JobTimestamps;
  /** Jobs to mark `retried: true, processed: true`: the latest jobs of that name. */
  markRetried: number[];
  /** Skipped jobs depending on it, back to created. */
  changes: JobChange[];
}

/** The plan to retry one job, or null when it is not retryable (the API answers 403). */
export function retryJobPlan(
  jobs: readonly RetryCandidate[],
  jobId: number,
  now: Date,
  options: RetryOptions = {},
): RetryJobPlan | null {
  const job = jobs.find((candidate) => candidate.id === jobId);
  if (!job || !isRetryable(job, options)) return null;
  const cloneStatus = jobTransition('created', 'enqueue', { resourceGroup: job.resourceGroup !== null }) as Status;
  return {
    cloneOf: job.id,
    cloneStatus,
    cloneTimestamps: jobTransitionTimestamps('created', cloneStatus, now),
    markRetried: latestJobs(jobs).filter((other) => other.name === job.name).map((other) => other.id),
    changes: dependentSkippedJobs(jobs, job).map((skipped) => processChange(skipped, now)),
  };
}

export interface RetryPipelinePlan {
  /** Jobs to clone as new `created` records (processing then enqueues them). */
  cloneOf: number[];
  /** Jobs to mark `retried: true, processed: true` (the cloned ones). */
  markRetried: number[];
  /** Every latest skipped job, back to created. */
  changes: JobChange[];
}

/** The plan to retry a pipeline: its latest failed and canceled jobs, and its skipped ones reset. */
export function retryPipelinePlan(
  jobs: readonly RetryCandidate[],
  now: Date,
  options: RetryOptions = {},
): RetryPipelinePlan {
  const latest = latestJobs(jobs);
  const cloned = latest.filter((job) => (job.status === 'failed' || job.status === 'canceled') && isRetryable(job, options));
  return {
    cloneOf: cloned.map((job) => job.id),
    markRetried: cloned.map((job) => job.id),
    changes: latest.filter((job) => job.status === 'skipped').map((job) => processChange(job, now)),
  };
}

/** `retry:` of a job: a number (max) or `{max, when}`. */
export type RetryConfig = number | { max?: number | string | null; when?: readonly string[] | null } | null | undefined;

/** Reasons never retried automatically, whatever `retry:` says. */
const NEVER_RETRIED: readonly string[] = [
  'ci_quota_exceeded',
  'no_matching_runner',
  'missing_dependency_failure',
  'forward_deployment_failure',
  'environment_creation_failure',
];
/** Reasons retried by default when `retry:` does not cover them. */
const DEFAULT_RETRIES: Readonly<Record<string, number>> = { scheduler_failure: 2 };

export interface AutoRetryDecision {
  retry: boolean;
  maxRetries: number;
}

function integerOrNull(value: unknown): number | null {
  if (typeof value === 'number') return Number.isInteger(value) ? value : null;
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return Number.parseInt(value, 10);
  return null;
}

/**
 * Whether a job that just failed with `failureReason` is retried automatically: when it is
 * retryable and fewer than the allowed retries of jobs with its name were made (`retriedCount`).
 */
export function autoRetryDecision(
  job: { status: Status; bridge?: boolean },
  failureReason: string | null,
  retriedCount: number,
  retryConfig: RetryConfig,
  options: RetryOptions = {},
): AutoRetryDecision {
  const reason = failureReason ?? 'unknown_failure';
  const config = typeof retryConfig === 'number' ? { max: retryConfig } : (retryConfig ?? {});
  const when = config.when ?? ['always'];
  const configured = when.includes(reason) || when.includes('always') ? integerOrNull(config.max) : null;
  const maxRetries = NEVER_RETRIED.includes(reason) ? 0 : (configured ?? DEFAULT_RETRIES[reason] ?? 0);
  const retry = isRetryable(job, options) && maxRetries > 0 && maxRetries > retriedCount;
  return { retry, maxRetries };
}
