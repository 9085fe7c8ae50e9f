// The worker loop every server process runs: claims due jobs and runs them, up to `concurrency` at
// once. It wakes at once when this process enqueues a job, on PostgreSQL when any node does
// (LISTEN/NOTIFY), and otherwise polls. stop() stops claiming and waits for the jobs in flight,
// so a graceful shutdown cuts no job in half.
import type { Deps } from '../core/deps.ts';
import { type JobKind, type JobOutcome, WAKE_CHANNEL, claimNext, onLocalEnqueue, runClaimed } from './queue.ts';

export interface WorkerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WorkerOptions {
  kinds: readonly JobKind[];
  concurrency?: number;
  /** The fallback look for due jobs (retries that came due, other nodes' jobs on SQLite). */
  pollMs?: number;
  log?: WorkerLog;
  /** Called after every job, for tests. */
  onOutcome?: (outcome: JobOutcome) => void;
}

export interface Worker {
  stop(): Promise<void>;
}

/** How many jobs a process's worker runs at once unless told otherwise. */
export const DEFAULT_WORKER_CONCURRENCY = 2;

export const kindMap = (kinds: readonly JobKind[]): ReadonlyMap<string, JobKind> => new Map(kinds.map((kind) => [kind.name, kind]));

export async function startWorker(deps: Deps, options: WorkerOptions): Promise<Worker> {
  const kinds = kindMap(options.kinds);
  const concurrency = options.concurrency ?? DEFAULT_WORKER_CONCURRENCY;
  const pollMs = options.pollMs ?? 1000;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let claiming = false;
  let again = false;

  const runOne = async (): Promise<boolean> => {
    const job = await claimNext(deps.db);
    if (!job) return false;
    const task = runClaimed(deps, kinds, job).then((outcome) => {
      if (!outcome.ok) options.log?.error({ err: outcome.error, job: outcome.id, kind: outcome.kind }, 'background job failed');
      else options.log?.info({ job: outcome.id, kind: outcome.kind }, 'background job done');
      options.onOutcome?.(outcome);
    });
    const tracked = task.finally(() => {
      inFlight.delete(tracked);
      // A slot came free: there may be more waiting.
      wake();
    });
    inFlight.add(tracked);
    return true;
  };

  // Claims until the slots are full or nothing is due; one claim loop at a time.
  const fill = async () => {
    if (claiming) {
      again = true;
      return;
    }
    claiming = true;
    try {
      do {
        again = false;
        while (!stopped && inFlight.size < concurrency && (await runOne()));
      } while (again && !stopped);
    } catch (error) {
      options.log?.error({ err: error }, 'claiming background jobs failed');
    } finally {
      claiming = false;
    }
  };

  const schedule = () => {
    if (timer) clearTimeout(timer);
    if (!stopped) timer = setTimeout(tick, pollMs).unref();
  };
  const tick = () => {
    void fill().finally(schedule);
  };
  const wake = () => {
    if (!stopped) void fill();
  };

  const stopLocal = onLocalEnqueue(wake);
  const stopListening = await deps.database.listen(WAKE_CHANNEL, wake).catch((error: unknown) => {
    options.log?.error({ err: error }, 'could not listen for background jobs; polling only');
    return null;
  });
  tick();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      stopLocal();
      await stopListening?.();
      while (claiming || inFlight.size > 0) await Promise.all([...inFlight, new Promise((r) => setTimeout(r, 10))]);
    },
  };
}

/** Runs every due job in this process until none is left; for commands and tests. */
export async function drainJobs(deps: Deps, kinds: readonly JobKind[]): Promise<JobOutcome[]> {
  const map = kindMap(kinds);
  const outcomes: JobOutcome[] = [];
  for (let job = await claimNext(deps.db); job; job = await claimNext(deps.db)) outcomes.push(await runClaimed(deps, map, job));
  return outcomes;
}
