// Pipeline figures computed from its jobs (14.x `Ci::Pipeline`, `Gitlab::Ci::Pipeline::Duration`).
import { type Status } from './status.ts';

export interface TimedJob {
  retried: boolean;
  status: Status;
  startedAt: Date | null;
  finishedAt: Date | null;
  coverage?: number | null;
}

const TIMED_STATUSES: readonly Status[] = ['success', 'failed', 'running', 'canceled'];

/**
 * Pipeline `duration` in whole seconds: the length of the union of the running intervals of its
 * latest started jobs (overlaps counted once, queue time and gaps excluded; a running job runs to now).
 */
export function pipelineDuration(jobs: readonly TimedJob[], now: Date): number {
  const periods = jobs
    .filter((job) => !job.retried && TIMED_STATUSES.includes(job.status) && job.startedAt !== null)
    .map((job) => ({ first: (job.startedAt as Date).getTime(), last: (job.finishedAt ?? now).getTime() }))
    .sort((a, b) => a.first - b.first);
  let total = 0;
  let current: { first: number; last: number } | null = null;
  for (const period of periods) {
    if (current !== null && period.first <= current.last) {
      current.last = Math.max(current.last, period.last);
      continue;
    }
    if (current !== null) total += current.last - current.first;
    current = { ...period };
  }
  if (current !== null) total += current.last - current.first;
  return Math.trunc(total / 1000); // the column is an integer: the platform truncates
}

/** Pipeline `queued_duration`: whole seconds from creation to start; null before it starts or if 0. */
export function pipelineQueuedDuration(pipeline: { createdAt: Date; startedAt: Date | null }): number | null {
  if (pipeline.startedAt === null) return null;
  const seconds = Math.trunc((pipeline.startedAt.getTime() - pipeline.createdAt.getTime()) / 1000);
  return seconds === 0 ? null : seconds;
}

/**
 * `'%.2f' % value` as Ruby (C printf) writes it: exact binary ties round half to even, where
 * JavaScript's toFixed rounds them up (0.125 → "0.12", not "0.13").
 */
export function formatTwoDecimals(value: number): string {
  const eighths = value * 8; // exact: ties at two decimals are the odd multiples of 1/8 ending in 5
  if (Number.isInteger(eighths) && Math.abs(eighths % 2) === 1 && Math.abs(eighths) < 2 ** 50) {
    const hundredths = (eighths * 25) / 2; // an exact x.5
    const down = Math.floor(hundredths);
    const even = down % 2 === 0 ? down : down + 1;
    return (even / 100).toFixed(2);
  }
  return value.toFixed(2);
}

/** Pipeline `coverage`: the average of its latest jobs' coverage as '%.2f', or null when none has one. */
export function pipelineCoverage(jobs: readonly TimedJob[]): string | null {
  const values = jobs
    .filter((job) => !job.retried && job.coverage !== null && job.coverage !== undefined)
    .map((job) => job.coverage as number);
  if (values.length === 0) return null;
  return formatTwoDecimals(values.reduce((sum, value) => sum + value, 0) / values.length);
}
