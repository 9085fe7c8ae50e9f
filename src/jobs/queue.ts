// The durable queue of background work. A job is a row of background_jobs, written with
// enqueue() inside the transaction of the change that calls for it (an outbox): it exists exactly
// when that change committed. Workers claim jobs atomically, run them, and delete them once done;
// a failure is retried with backoff up to the kind's attempts, a claim that expires (its worker
// died) lets another worker take the job, and the last error is kept.
//
// A kind's handler must be safe to run again: a worker can die after its work and before the
// row goes. To make its database effects happen exactly once, a handler ends with
// `job.complete(trx)` inside its own last transaction, which deletes the row under the claim and
// fails (rolling back) when the claim was lost to another worker.
import { randomBytes } from 'node:crypto';
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type BaseContext, type ServiceContext, systemContext } from '../core/context.ts';
import { type QueueCount, jobMetrics } from '../core/metrics.ts';
import { processAlive, thisHost } from '../core/processes.ts';
import type { BackgroundJobRow, DB } from '../db/schema.ts';

/** What a handler runs with: the service context, and its claim on the job. */
export interface RunningJob {
  readonly id: number;
  /** 1 on the first run. */
  readonly attempt: number;
  /** Deletes the job inside the handler's transaction; throws JobClaimLost when another worker holds it now. */
  complete(trx: Kysely<DB>): Promise<void>;
}

export interface JobKind<S extends TSchema = TSchema> {
  /** Unique and stable: stored in each row. */
  readonly name: string;
  readonly payload: S;
  /** Runs before the job is given up as failed (default 5). */
  readonly maxAttempts?: number;
  /** How long a claim holds before another worker may take the job (default 15 minutes). */
  readonly lockSeconds?: number;
  run(ctx: ServiceContext, payload: Static<S>, job: RunningJob): Promise<void>;
  /** Called once when the job fails for good, to undo what waiting for it held (a read-only flag). */
  failed?(ctx: ServiceContext, payload: Static<S>): Promise<void>;
}

export const defineJobKind = <S extends TSchema>(kind: JobKind<S>): JobKind<S> => kind;

/**
 * What enqueueing needs of a kind: its name, payload and attempts, without its handler. Writers
 * enqueue through a declaration when the handler depends on them (the kind spreads it).
 */
export type JobDeclaration<S extends TSchema = TSchema> = Pick<JobKind<S>, 'name' | 'payload' | 'maxAttempts'>;

export class JobClaimLost extends Error {
  constructor(id: number) {
    super(`background job ${id} was claimed by another worker`);
  }
}

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_LOCK_SECONDS = 15 * 60;
/** The PostgreSQL channel that wakes idle workers of every node. */
export const WAKE_CHANNEL = 'quarry_background_jobs';

const isPostgres = (db: Kysely<DB>) => db.getExecutor().adapter instanceof PostgresAdapter;

// ---- Waking this process's workers ---------------------------------------------------------------

const wakeListeners = new Set<() => void>();

/** Calls listener whenever this process enqueues a job; returns its removal. */
export function onLocalEnqueue(listener: () => void): () => void {
  wakeListeners.add(listener);
  return () => void wakeListeners.delete(listener);
}

function wakeLocalWorkers(): void {
  for (const listener of wakeListeners) listener();
}

// ---- Enqueue -----------------------------------------------------------------------------------

export interface EnqueueOptions {
  /** Not before this time (default: now). */
  runAt?: Date;
  /** While a job of the kind with this key waits (until a worker claims it), enqueueing another is a no-op (returns null). */
  dedupeKey?: string;
  /** The caller runs the job itself right after its commit (runNow); workers are not woken for it. */
  runHere?: boolean;
}

/**
 * Records a job in the caller's transaction (or on its own when db is not one). Returns the job's
 * id, or null when an identical job (same dedupeKey) already waits. The payload is checked against
 * the kind's schema here, so a bad payload fails the caller, not a worker later.
 */
export async function enqueue<S extends TSchema>(db: Kysely<DB>, kind: JobDeclaration<S>, payload: Static<S>, options: EnqueueOptions = {}): Promise<number | null> {
  const [id] = await insertJobs(db, kind, [{ payload, ...options }], options.runHere === true);
  return id ?? null;
}

/** Records several jobs of a kind in one statement, as enqueue does each; returns the ids of those not already waiting. */
export function enqueueMany<S extends TSchema>(db: Kysely<DB>, kind: JobDeclaration<S>, jobs: readonly ({ payload: Static<S> } & Omit<EnqueueOptions, 'runHere'>)[]): Promise<number[]> {
  return insertJobs(db, kind, jobs, false);
}

async function insertJobs<S extends TSchema>(db: Kysely<DB>, kind: JobDeclaration<S>, jobs: readonly ({ payload: Static<S> } & EnqueueOptions)[], runHere: boolean): Promise<number[]> {
  if (jobs.length === 0) return [];
  for (const { payload } of jobs) if (!Value.Check(kind.payload, payload)) throw new Error(`invalid payload for background job ${kind.name}: ${JSON.stringify(payload)}`);
  const now = new Date().toISOString();
  const rows = await db
    .insertInto('background_jobs')
    .values(
      jobs.map((job) => ({
        kind: kind.name,
        payload: JSON.stringify(job.payload),
        state: 'queued',
        run_at: (job.runAt ?? new Date()).toISOString(),
        max_attempts: kind.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        locked_by: null,
        last_error: null,
        dedupe_key: job.dedupeKey ?? null,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['kind', 'dedupe_key']).doNothing())
    .returning('id')
    .execute();
  for (const _ of rows) jobMetrics.enqueued(kind.name);
  if (rows.length === 0 || runHere) return rows.map((r) => r.id);
  // PostgreSQL delivers a notification at commit, to every node (this one included); SQLite's one
  // connection per process makes a woken worker's claim wait for the caller's commit.
  if (isPostgres(db)) await sql`select pg_notify(${WAKE_CHANNEL}, '')`.execute(db);
  else setImmediate(wakeLocalWorkers);
  return rows.map((r) => r.id);
}

/** Deletes a job that still waits (no worker has claimed it); whether it did. */
export async function withdraw(db: Kysely<DB>, id: number | null): Promise<boolean> {
  if (id === null) return false;
  const result = await db.deleteFrom('background_jobs').where('id', '=', id).where('state', '=', 'queued').executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

// ---- Claims ------------------------------------------------------------------------------------

/** A claim's owner: which host and process, and which claim (so a stale worker cannot finish a job taken over). */
function claimToken(): string {
  return `${thisHost()}:${process.pid}:${randomBytes(6).toString('hex')}`;
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString();

/** When the job a claim took was due: the run_at that the claim statement appended to its token. */
function dueTime(lockedBy: string | null): number {
  // <host>:<pid>:<random>:<ISO time>; host names have no ':'.
  return Date.parse((lockedBy ?? '').split(':').slice(3).join(':'));
}

/**
 * Claims the next due job (queued and due, or running with an expired claim), oldest first; null
 * when there is none. With onlyId, that job if it still waits, due or not. The queue keeps real
 * time, not the services' clock. One statement: on SQLite it holds the write lock throughout, on PostgreSQL
 * SKIP LOCKED lets concurrent claimers pass each other.
 */
export async function claimNext(db: Kysely<DB>, onlyId?: number): Promise<BackgroundJobRow | null> {
  const now = new Date();
  const at = now.toISOString();
  const token = claimToken();
  const due = db
    .selectFrom('background_jobs')
    .select('id')
    .where('state', 'in', onlyId === undefined ? ['queued', 'running'] : ['queued'])
    .$if(onlyId === undefined, (q) => q.where('run_at', '<=', at))
    .$if(onlyId !== undefined, (q) => q.where('id', '=', onlyId as number))
    .orderBy('run_at')
    .orderBy('id')
    .limit(1)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  // The claim's token ends with the run_at it replaces (SET reads the row as it was), so that the
  // claimer learns how long the job waited for a worker without a second statement.
  const row = await db
    .updateTable('background_jobs')
    .set((eb) => ({
      state: 'running',
      attempts: eb('attempts', '+', 1),
      locked_by: sql<string>`cast(${`${token}:`} as text) || ${eb.ref('run_at')}`,
      dedupe_key: null,
      run_at: later(now, DEFAULT_LOCK_SECONDS),
      updated_at: at,
    }))
    .where('id', '=', (eb) => eb.selectFrom(due.as('due')).select('due.id'))
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/** Backoff before the next attempt: 5 s, 20 s, 80 s, … at most an hour. */
export function retryDelaySeconds(attempt: number): number {
  return Math.min(5 * 4 ** Math.max(0, attempt - 1), 3600);
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return text.slice(0, 4000);
}

export interface JobOutcome {
  id: number;
  kind: string;
  ok: boolean;
  error?: unknown;
}

/**
 * Runs a claimed job with its kind: deleted when it succeeds; otherwise queued again after a
 * backoff, or failed for good once out of attempts (or when its kind or payload is unknown).
 */
export async function runClaimed(base: BaseContext, kinds: ReadonlyMap<string, JobKind>, job: BackgroundJobRow): Promise<JobOutcome> {
  // A job acts for no one: it runs alike at once in the writer's process (runNow) or later in a worker.
  const ctx = systemContext(base);
  const { db } = ctx;
  const kind = kinds.get(job.kind);
  const owned = (trx: Kysely<DB>) => trx.deleteFrom('background_jobs').where('id', '=', job.id).where('locked_by', '=', job.locked_by);
  let payload: unknown;
  const started = performance.now();
  jobMetrics.started(job.kind, (Date.now() - dueTime(job.locked_by)) / 1000 || 0);
  const finished = (outcome: 'completed' | 'retried' | 'failed') => jobMetrics.finished(job.kind, (performance.now() - started) / 1000, outcome);
  try {
    if (!kind) throw new PermanentJobError(`unknown background job kind "${job.kind}"`);
    // Claimed again after its claim expired on the last attempt: its worker died every time.
    if (job.attempts > job.max_attempts) throw new PermanentJobError('the worker running it stopped during every attempt');
    payload = JSON.parse(job.payload);
    if (!Value.Check(kind.payload, payload)) throw new PermanentJobError(`payload does not match the schema of ${job.kind}`);
    if (kind.lockSeconds !== undefined && kind.lockSeconds !== DEFAULT_LOCK_SECONDS) {
      await db.updateTable('background_jobs').set({ run_at: later(new Date(), kind.lockSeconds) }).where('id', '=', job.id).where('locked_by', '=', job.locked_by).execute();
    }
    const running: RunningJob = {
      id: job.id,
      attempt: job.attempts,
      async complete(trx) {
        const done = await owned(trx).executeTakeFirst();
        if (Number(done.numDeletedRows) !== 1) throw new JobClaimLost(job.id);
      },
    };
    await kind.run(ctx, payload, running);
    await owned(db).execute();
    finished('completed');
    await countRun(db, job.kind, false);
    return { id: job.id, kind: job.kind, ok: true };
  } catch (error) {
    const giveUp = error instanceof PermanentJobError || job.attempts >= job.max_attempts;
    finished(giveUp ? 'failed' : 'retried');
    const now = new Date();
    await db
      .updateTable('background_jobs')
      .set({
        state: giveUp ? 'failed' : 'queued',
        run_at: giveUp ? now.toISOString() : later(now, retryDelaySeconds(job.attempts)),
        locked_by: null,
        last_error: errorText(error),
        updated_at: now.toISOString(),
      })
      .where('id', '=', job.id)
      .where('locked_by', '=', job.locked_by)
      .execute();
    await countRun(db, job.kind, true);
    if (giveUp && kind?.failed && Value.Check(kind.payload, payload)) await kind.failed(ctx, payload);
    return { id: job.id, kind: job.kind, ok: false, error };
  }
}

/**
 * Adds a finished run to its kind's totals (every run is processed; a run that threw also failed,
 * retried or not), as Sidekiq counts its processed and failed statistics. The totals serve the
 * job statistics only: failing to count never fails the job.
 */
async function countRun(db: Kysely<DB>, kind: string, failed: boolean): Promise<void> {
  await db
    .insertInto('background_job_stats')
    .values({ kind, processed: 1, failed: failed ? 1 : 0 })
    .onConflict((oc) =>
      oc.column('kind').doUpdateSet((eb) => ({
        processed: eb('background_job_stats.processed', '+', 1),
        failed: eb('background_job_stats.failed', '+', failed ? 1 : 0),
      })),
    )
    .execute()
    .catch(() => undefined);
}

/** How many jobs there are of each kind in each state (one grouped query). */
export async function countJobs(db: Kysely<DB>): Promise<QueueCount[]> {
  const rows = await db
    .selectFrom('background_jobs')
    .select(['kind', 'state', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy(['kind', 'state'])
    .orderBy('kind')
    .orderBy('state')
    .execute();
  return rows.map((row) => ({ kind: row.kind, state: row.state, n: Number(row.n) }));
}

/** A failure no retry can mend: the job fails at once. */
export class PermanentJobError extends Error {}

/**
 * Runs one job now, in the caller's process, if it is still waiting (the caller enqueued it with
 * runHere): the caller sees its effects when this resolves. Should the job fail, it stays queued
 * for the workers' retries and the outcome says so.
 */
export async function runNow(ctx: BaseContext, kind: JobKind, id: number | null): Promise<JobOutcome | null> {
  if (id === null) return null;
  const job = await claimNext(ctx.db, id);
  return job ? runClaimed(ctx, new Map([[kind.name, kind]]), job) : null;
}

/**
 * Gives back the jobs claimed by processes of this host that no longer run (a crash, a kill), so
 * that a restart takes them up at once instead of after their claims expire.
 */
export async function releaseOrphanedClaims(db: Kysely<DB>): Promise<number> {
  const host = thisHost();
  const now = new Date();
  const running = await db.selectFrom('background_jobs').select(['id', 'locked_by']).where('state', '=', 'running').execute();
  let released = 0;
  for (const job of running) {
    const [jobHost, pid] = (job.locked_by ?? '').split(':');
    if (jobHost !== host || processAlive(Number(pid))) continue;
    const result = await db
      .updateTable('background_jobs')
      .set({ state: 'queued', run_at: now.toISOString(), locked_by: null, updated_at: now.toISOString() })
      .where('id', '=', job.id)
      .where('locked_by', '=', job.locked_by)
      .executeTakeFirst();
    released += Number(result.numUpdatedRows);
  }
  return released;
}
