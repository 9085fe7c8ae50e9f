// What runners change on their jobs (notes gitlab-ci.md §1.5–§1.6, §8): the state of a running
// job, and its log. Each change of state queues the pipeline's processing in the same transaction.
import { PostgresAdapter } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { digest } from '../../core/auth/secrets.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiBuildRow } from '../../db/schema.ts';
import { enqueue } from '../../jobs/queue.ts';
import { processPipelineJob } from '../pipelines/pipeline-processing.jobs.ts';
import { appendTrace, hideSecrets } from './traces.ts';

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
    await enqueue(tx.db, processPipelineJob, { pipelineId: job.pipeline_id }, { dedupeKey: String(job.pipeline_id) });
    return { ok: true } as const;
  });
}

async function currentStatus(ctx: ServiceContext, id: number): Promise<string | null> {
  return (await ctx.db.selectFrom('ci_builds').select('status').where('id', '=', id).executeTakeFirst())?.status ?? null;
}

export type TraceOutcome = { length: number; status: string } | { mismatch: number } | { notRunning: string };

/** Appends a runner's log bytes at `start`, with the job's and the project's runner tokens hidden. */
export async function patchTrace(ctx: ServiceContext, job: CiBuildRow, token: string, start: number, body: Buffer): Promise<TraceOutcome> {
  const project = await ctx.db.selectFrom('projects').select('runners_token_encrypted').where('id', '=', job.project_id).executeTakeFirst();
  const runnersToken = project?.runners_token_encrypted ? secretBox(ctx.config.dataDir).open(project.runners_token_encrypted) : null;
  const masked = hideSecrets(body, [token, runnersToken]);
  return withTransaction(ctx, async (tx) => {
    const postgres = tx.db.getExecutor().adapter instanceof PostgresAdapter;
    const current = await tx.db.selectFrom('ci_builds').select('status').where('id', '=', job.id).$if(postgres, (q) => q.forNoKeyUpdate()).executeTakeFirst();
    if (current?.status !== 'running') return { notRunning: current?.status ?? 'canceled' };
    const result = await appendTrace(tx.db, job.id, start, masked);
    return 'mismatch' in result ? result : { length: result.length, status: 'running' };
  });
}
