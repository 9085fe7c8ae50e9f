// The composite status of a set of jobs (`Gitlab::Ci::Status::Composite`): the status of a stage,
// of a pipeline, and the "previous status" a job waits on. Rules are ordered; the first that holds wins.
import { IGNORED_STATUSES, PASSED_WITH_WARNINGS_STATUSES, type Status } from './status.ts';

/** What each job contributes: its status, or one of two symbols when the job may fail. */
export type CompositeSymbol = Status | 'success_with_warnings' | 'ignored';

export interface StatusOfJob {
  status: Status;
  allowFailure: boolean;
}

export interface CompositeOptions {
  /** DAG mode: used for the jobs a `needs` job waits on. */
  dag?: boolean;
}

export function compositeSymbol(job: StatusOfJob): CompositeSymbol {
  if (job.allowFailure && PASSED_WITH_WARNINGS_STATUSES.includes(job.status)) return 'success_with_warnings';
  if (job.allowFailure && IGNORED_STATUSES.includes(job.status)) return 'ignored';
  return job.status;
}

/** Every member of the set is among `names` (and the set is not empty). */
function onlyOf(set: ReadonlySet<CompositeSymbol>, ...names: CompositeSymbol[]): boolean {
  let matching = 0;
  for (const name of names) if (set.has(name)) matching++;
  return matching > 0 && matching === set.size;
}

function anyOf(set: ReadonlySet<CompositeSymbol>, ...names: CompositeSymbol[]): boolean {
  return names.some((name) => set.has(name));
}

/** The composite status of a set of contributed symbols; null for an empty set. */
export function compositeOfSymbols(set: ReadonlySet<CompositeSymbol>, options: CompositeOptions = {}): Status | null {
  if (set.size === 0) return null;
  const dag = options.dag === true;
  // A DAG job is skipped when one of its needs did not run at all.
  if (dag && anyOf(set, 'skipped', 'ignored')) return 'skipped';
  // A DAG job waits until every need is complete.
  if (dag && !onlyOf(set, 'success', 'failed', 'canceled', 'skipped', 'success_with_warnings')) return 'pending';
  if (onlyOf(set, 'skipped', 'ignored')) return 'skipped';
  if (onlyOf(set, 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'success';
  if (onlyOf(set, 'created', 'success_with_warnings', 'ignored')) return 'created';
  if (onlyOf(set, 'preparing', 'success_with_warnings', 'ignored')) return 'preparing';
  if (onlyOf(set, 'canceled', 'success', 'skipped', 'success_with_warnings', 'ignored')) return 'canceled';
  if (onlyOf(set, 'pending', 'created', 'skipped', 'success_with_warnings', 'ignored')) return 'pending';
  if (anyOf(set, 'running', 'pending')) return 'running';
  if (anyOf(set, 'waiting_for_resource')) return 'waiting_for_resource';
  if (anyOf(set, 'manual')) return 'manual';
  if (anyOf(set, 'scheduled')) return 'scheduled';
  if (anyOf(set, 'preparing')) return 'preparing';
  if (anyOf(set, 'created')) return 'running';
  return 'failed';
}

/** The composite status of jobs; null when there are none. */
export function compositeStatus(jobs: Iterable<StatusOfJob>, options: CompositeOptions = {}): Status | null {
  const set = new Set<CompositeSymbol>();
  for (const job of jobs) set.add(compositeSymbol(job));
  return compositeOfSymbols(set, options);
}

/** Whether the set has warnings (a job allowed to fail failed or was canceled). */
export function compositeHasWarnings(jobs: Iterable<StatusOfJob>): boolean {
  for (const job of jobs) if (compositeSymbol(job) === 'success_with_warnings') return true;
  return false;
}
