// Periodic tasks (pruning, expiries) run by every server node. A node runs a due task only after
// claiming the run in scheduled_task_runs with a compare-and-set on next_run_at, so that several
// nodes sharing one database run each due task once. A node that dies mid-run loses that run;
// the next one comes an interval later, so tasks must be safe to repeat and to cut short.
import type { Deps } from '../core/deps.ts';
import { periodicTaskRan } from '../core/metrics.ts';

export interface PeriodicTask {
  /** Unique, stable: the claim row's key. */
  readonly name: string;
  readonly everySeconds: number;
  run(deps: Deps): Promise<void>;
}

export interface SchedulerLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Claims the task's run if it is due at `now`; true when this caller won the claim. */
export async function claimRun(deps: Deps, task: PeriodicTask, now: Date): Promise<boolean> {
  const at = now.toISOString();
  // A task seen for the first time is due at once.
  await deps.db
    .insertInto('scheduled_task_runs')
    .values({ name: task.name, next_run_at: at })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await deps.db.selectFrom('scheduled_task_runs').select('next_run_at').where('name', '=', task.name).executeTakeFirstOrThrow();
  if (row.next_run_at > at) return false;
  const next = new Date(now.getTime() + task.everySeconds * 1000).toISOString();
  const result = await deps.db
    .updateTable('scheduled_task_runs')
    .set({ next_run_at: next })
    .where('name', '=', task.name)
    .where('next_run_at', '=', row.next_run_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Runs every due task once, one after the other; returns the names of the tasks run. */
export async function runDueTasks(deps: Deps, tasks: readonly PeriodicTask[], log?: SchedulerLog): Promise<string[]> {
  const ran: string[] = [];
  for (const task of tasks) {
    /** When the task started, once this node claimed its run. */
    let started: number | null = null;
    try {
      if (!(await claimRun(deps, task, deps.now()))) continue;
      ran.push(task.name);
      started = performance.now();
      await task.run(deps);
      log?.info({ task: task.name }, 'periodic task ran');
      periodicTaskRan(task.name, (performance.now() - started) / 1000, true);
    } catch (error) {
      if (started !== null) periodicTaskRan(task.name, (performance.now() - started) / 1000, false);
      // One failing task must not keep the others from running.
      log?.error({ err: error, task: task.name }, 'periodic task failed');
    }
  }
  return ran;
}

export interface SchedulerOptions {
  tasks: readonly PeriodicTask[];
  /** How often due tasks are looked for. */
  tickSeconds?: number;
  log?: SchedulerLog;
}

/**
 * Looks for due tasks now and then every tick. The returned stop function waits for a task in
 * progress to finish, so a graceful shutdown never cuts a batch in half.
 */
export function startScheduler(deps: Deps, options: SchedulerOptions): () => Promise<void> {
  const tickMs = (options.tickSeconds ?? 30) * 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<unknown> = Promise.resolve();

  const tick = () => {
    timer = null;
    inFlight = runDueTasks(deps, options.tasks, options.log).finally(() => {
      if (!stopped) timer = setTimeout(tick, tickMs).unref();
    });
  };
  tick();

  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await inFlight;
  };
}
