// Reads of the job queue as Sidekiq reports its own: per kind, the jobs ready to run and how long
// the oldest has waited; the totals of runs (kept as jobs finish) and of jobs given up (dead);
// the jobs a process is running now. Each is one grouped query.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';

export interface QueueCounts {
  kind: string;
  backlog: number;
  /** When the oldest ready job became due. */
  oldestDue: string;
}

/** Queued jobs whose time has come, by kind (a retry waiting out its backoff is not yet ready). */
export async function readyJobsByKind(db: Kysely<DB>, now: Date): Promise<QueueCounts[]> {
  const rows = await db
    .selectFrom('background_jobs')
    .select(['kind', (eb) => eb.fn.countAll<number>().as('backlog'), (eb) => eb.fn.min('run_at').as('oldest_due')])
    .where('state', '=', 'queued')
    .where('run_at', '<=', now.toISOString())
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, backlog: Number(row.backlog), oldestDue: String(row.oldest_due) }));
}

export async function jobTotals(db: Kysely<DB>, now: Date): Promise<{ processed: number; failed: number; enqueued: number; dead: number }> {
  const runs = await db
    .selectFrom('background_job_stats')
    .select([(eb) => eb.fn.coalesce(eb.fn.sum<number>('processed'), eb.lit(0)).as('processed'), (eb) => eb.fn.coalesce(eb.fn.sum<number>('failed'), eb.lit(0)).as('failed')])
    .executeTakeFirstOrThrow();
  const jobs = await db
    .selectFrom('background_jobs')
    .select([
      (eb) => eb.fn.sum<number>(eb.case().when(eb.and([eb('state', '=', 'queued'), eb('run_at', '<=', now.toISOString())])).then(1).else(0).end()).as('enqueued'),
      (eb) => eb.fn.sum<number>(eb.case().when('state', '=', 'failed').then(1).else(0).end()).as('dead'),
    ])
    .executeTakeFirstOrThrow();
  return { processed: Number(runs.processed), failed: Number(runs.failed), enqueued: Number(jobs.enqueued ?? 0), dead: Number(jobs.dead ?? 0) };
}

/** The kinds the queue has seen: waiting, given up, or run at least once. */
export async function seenKinds(db: Kysely<DB>): Promise<string[]> {
  const rows = await db.selectFrom('background_jobs').select('kind').union(db.selectFrom('background_job_stats').select('kind')).execute();
  return rows.map((row) => row.kind);
}

/** How many jobs a process holds claims on (`<host>:<pid>:…`). */
export async function runningJobsOf(db: Kysely<DB>, host: string, pid: number): Promise<number> {
  const row = await db
    .selectFrom('background_jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', '=', 'running')
    .where('locked_by', 'like', `${host}:${pid}:%`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
