// What runners change on their jobs (notes gitlab-ci.md §1.5–§1.6, §8): the state of a running
// job, and its log. Each change of state queues the pipeline's processing in the same transaction,
// and a `pages` job that succeeds queues the publication of its site there too.
import { PostgresAdapter } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { digest } from '../../core/auth/secrets.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiBuildRow, CiRunnerRow } from '../../db/schema.ts';
import { PAGES_DEPLOY, PAGES_JOB_NAME } from '../../jobs/pages-work.ts';
import { enqueue } from '../../jobs/queue.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { processLater, processManyLater } from '../pipelines/index.ts';
import { appendTrace, hideSecrets, traceTail } from './traces.ts';
import { DEFAULT_COVERAGE_TAIL_BYTES, coveragePattern, extractCoverage } from '../../ci/coverage.ts';
import { dropJob, retryAutomatically } from './drop-job.ts';
import { runnerMatchesTags, runnersServing } from './job-assignment.ts';

/** The job a job token belongs to, whatever its status; null when none. */
export async function jobByToken(ctx: ServiceContext, id: number, token: string | undefined): Promise<CiBuildRow | null> {
  if (!token) return null;
  const row = await ctx.db.selectFrom('ci_builds').selectAll().where('id', '=', id).executeTakeFirst();
  return row && row.token_digest === digest(token) ? row : null;
}

export type StateUpdate = { state: 'running' | 'success' | 'failed'; failureReason?: string; exitCode?: number };

export type UpdateOutcome = { ok: true } | { notRunning: string } | { invalid: true };

const FINAL = { success: 'success', failed: 'failed' } as const;

/** Applies a runner's PUT /jobs/:id. A repeated final update of a job already in that state is a no-op (notes §8.5). */
export async function updateJobState(ctx: ServiceContext, job: CiBuildRow, update: StateUpdate): Promise<UpdateOutcome> {
  if (job.status !== 'running') {
    if (update.state !== 'running' && FINAL[update.state] === job.status) return { ok: true };
    return { notRunning: job.status };
  }
  const now = ctx.now().toISOString();
  if (update.state === 'running') {
    await ctx.db.updateTable('ci_builds').set({ updated_at: now }).where('id', '=', job.id).execute();
    return { ok: true };
  }
  if (update.state !== 'success' && update.state !== 'failed') return { invalid: true };
  return withTransaction(ctx, async (tx) => {
    const options = JSON.parse(job.options) as { allow_failure_exit_codes?: number[] | null };
    const allowedExit = update.state === 'failed' && update.exitCode !== undefined && (options.allow_failure_exit_codes ?? []).includes(update.exitCode);
    const changed = await tx.db
      .updateTable('ci_builds')
      .set({
        status: update.state,
        finished_at: now,
        updated_at: now,
        failure_reason: update.state === 'failed' ? (update.failureReason || 'unknown_failure') : null,
        exit_code: update.exitCode ?? null,
        ...(allowedExit ? { allow_failure: true } : {}),
      })
      .where('id', '=', job.id)
      .where('status', '=', 'running')
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) === 0) return { notRunning: (await currentStatus(tx, job.id)) ?? 'canceled' };
    await enqueueHookEvent(tx.db, { projectId: job.project_id }, { kind: 'job', buildId: job.id });
    if (update.state === 'success' && job.coverage_regex) await recordCoverage(tx, job.id, job.coverage_regex);
    if (update.state === 'success' && job.name === PAGES_JOB_NAME && tx.config.pagesEnabled) await enqueue(tx.db, PAGES_DEPLOY, { buildId: job.id });
    const finished = { ...job, status: update.state, failure_reason: update.state === 'failed' ? (update.failureReason || 'unknown_failure') : null };
    if (update.state === 'failed' && (await retryAutomatically(tx, finished))) return { ok: true } as const;
    await processLater(tx.db, job.pipeline_id);
    return { ok: true } as const;
  });
}

/** The job's coverage from the end of its log, with its `coverage:` regular expression (notes §3.8). */
async function recordCoverage(ctx: ServiceContext, jobId: number, regex: string): Promise<void> {
  const coverage = extractCoverage(await traceTail(ctx.db, jobId, DEFAULT_COVERAGE_TAIL_BYTES), coveragePattern(regex));
  if (coverage !== null) await ctx.db.updateTable('ci_builds').set({ coverage }).where('id', '=', jobId).execute();
}

async function currentStatus(ctx: ServiceContext, id: number): Promise<string | null> {
  return (await ctx.db.selectFrom('ci_builds').select('status').where('id', '=', id).executeTakeFirst())?.status ?? null;
}

export type TraceOutcome = { length: number; status: string } | { mismatch: number } | { notRunning: string } | { exceeded: true };

/**
 * Appends a runner's log bytes at `start`, with the job's and the project's runner tokens hidden.
 * A log that would reach QUARRY_CI_MAX_TRACE_SIZE fails the job instead (trace_size_exceeded), as
 * the platform's ci_jobs_trace_size_limit does: judged by where the bytes would end, before the
 * start is checked.
 */
export async function patchTrace(ctx: ServiceContext, job: CiBuildRow, token: string, start: number, body: Buffer): Promise<TraceOutcome> {
  const project = await ctx.db.selectFrom('projects').select('runners_token_encrypted').where('id', '=', job.project_id).executeTakeFirst();
  const runnersToken = project?.runners_token_encrypted ? secretBox(ctx.config.dataDir).open(project.runners_token_encrypted) : null;
  const masked = hideSecrets(body, [token, runnersToken]);
  return withTransaction(ctx, async (tx) => {
    const postgres = tx.db.getExecutor().adapter instanceof PostgresAdapter;
    const current = await tx.db.selectFrom('ci_builds').select('status').where('id', '=', job.id).$if(postgres, (q) => q.forNoKeyUpdate()).executeTakeFirst();
    if (current?.status !== 'running') return { notRunning: current?.status ?? 'canceled' };
    const limit = tx.config.ciMaxTraceBytes;
    if (limit > 0 && start + masked.length >= limit) {
      await dropJob(tx, { ...job, status: 'running' }, 'trace_size_exceeded');
      return { exceeded: true } as const;
    }
    const result = await appendTrace(tx.db, job.id, start, masked);
    return 'mismatch' in result ? result : { length: result.length, status: 'running' };
  });
}

// ---- Stuck jobs ------------------------------------------------------------------------------------

/** Jobs the stuck-jobs task reads and fails at a time. */
const STUCK_BATCH = 500;

/** Whether a runner could take a pending job: its protection and tags (where it serves is known). */
function couldTake(runner: CiRunnerRow, job: CiBuildRow): boolean {
  return (runner.access_level !== 'ref_protected' || job.protected) && runnerMatchesTags(runner, JSON.parse(job.tag_list) as string[]);
}

/**
 * Fails what the platform's stuck-jobs worker fails: running jobs silent for too long and pending
 * jobs waiting too long (or, after the shorter time, that no active runner could take), with
 * `stuck_or_timeout_failure`; delayed jobs long past their time with `stale_schedule`. Each batch
 * costs the same few queries however many jobs, runners and projects it involves.
 */
export async function dropStuckJobs(ctx: ServiceContext): Promise<number> {
  const now = ctx.now().getTime();
  const before = (seconds: number) => new Date(now - seconds * 1000).toISOString();
  const { ciStuckRunningSeconds: running, ciStuckPendingSeconds: pending } = ctx.config;
  let runners: Promise<CiRunnerRow[]> | null = null;
  const unservable = async (jobs: CiBuildRow[]) => {
    runners ??= ctx.db.selectFrom('ci_runners').selectAll().where('active', '=', true).execute();
    const serving = await runnersServing(ctx.db, await runners, [...new Set(jobs.map((j) => j.project_id))]);
    return jobs.filter((job) => (job.queued_at as string) < before(pending) || !(serving.get(job.project_id) ?? []).some((runner) => couldTake(runner, job)));
  };
  const all = async (jobs: CiBuildRow[]) => jobs;
  return (
    (await dropInBatches(ctx, { status: 'running', since: 'updated_at', before: before(running), reason: 'stuck_or_timeout_failure' }, all)) +
    (await dropInBatches(ctx, { status: 'pending', since: 'queued_at', before: before(running), reason: 'stuck_or_timeout_failure' }, unservable)) +
    (await dropInBatches(ctx, { status: 'scheduled', since: 'scheduled_at', before: before(running), reason: 'stale_schedule' }, all))
  );
}

interface StuckKind {
  status: 'running' | 'pending' | 'scheduled';
  /** The time that makes a job of this status stuck once older than `before`. */
  since: 'updated_at' | 'queued_at' | 'scheduled_at';
  before: string;
  reason: string;
}

/** Reads the jobs of a kind by batches in id order, and fails those `choose` keeps; how many it failed. */
async function dropInBatches(ctx: ServiceContext, kind: StuckKind, choose: (jobs: CiBuildRow[]) => Promise<CiBuildRow[]>): Promise<number> {
  let dropped = 0;
  for (let after = 0; ; ) {
    const batch = await ctx.db
      .selectFrom('ci_builds')
      .selectAll()
      // Builds only: bridges wait on their downstream pipelines, commit statuses on the systems that report them.
      .where('type', '=', 'build')
      .where('status', '=', kind.status)
      .where(kind.since, '<', kind.before)
      .where('id', '>', after)
      .orderBy('id')
      .limit(STUCK_BATCH)
      .execute();
    dropped += await failJobs(ctx, kind, await choose(batch));
    if (batch.length < STUCK_BATCH) return dropped;
    after = batch[batch.length - 1].id;
  }
}

/** Fails jobs still in the kind's status, in one transaction that queues their pipelines' processing. */
async function failJobs(ctx: ServiceContext, kind: StuckKind, jobs: readonly CiBuildRow[]): Promise<number> {
  if (jobs.length === 0) return 0;
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const failed = await tx.db
      .updateTable('ci_builds')
      .set({ status: 'failed', failure_reason: kind.reason, finished_at: at, updated_at: at })
      .where('id', 'in', jobs.map((j) => j.id))
      .where('status', '=', kind.status)
      .returning(['id', 'pipeline_id'])
      .execute();
    if (failed.length === 0) return 0;
    if (kind.status === 'pending') await tx.db.deleteFrom('ci_pending_builds').where('build_id', 'in', failed.map((f) => f.id)).execute();
    await processManyLater(tx.db, failed.map((f) => f.pipeline_id));
    return failed.length;
  });
}
