// Failing a job that has not finished, the platform's `drop`: its status and failure reason, then
// what follows every failure: `retry:` may run it again (notes gitlab-ci.md §2.6), else its
// pipeline is processed.
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import type { CiBuildRow } from '../../db/schema.ts';
import { type RetryConfig, autoRetryDecision } from '../../ci/processing.ts';
import { processLater } from '../pipelines/index.ts';
import { retryJob } from '../pipelines/pipelines.service.ts';

/** `retry:`: a failed job runs again while fewer retries of its name were made than allowed; true when it did. */
export async function retryAutomatically(ctx: ServiceContext, job: CiBuildRow): Promise<boolean> {
  const options = JSON.parse(job.options) as { retry?: RetryConfig };
  const retried = await ctx.db
    .selectFrom('ci_builds')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('pipeline_id', '=', job.pipeline_id)
    .where('name', '=', job.name)
    .where('retried', '=', true)
    .executeTakeFirstOrThrow();
  const decision = autoRetryDecision({ status: 'failed', bridge: job.type === 'bridge' }, job.failure_reason, Number(retried.count), options.retry ?? null);
  if (!decision.retry) return false;
  return (await retryJob(ctx, job, job.user_id)) !== null;
}

/**
 * Fails the job with `reason` if it is still in the status it was read in (and records the runner
 * that refused it, when one did); false when it had moved on meanwhile.
 */
export async function dropJob(ctx: ServiceContext, job: CiBuildRow, reason: string, runnerId?: number): Promise<boolean> {
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const changed = await tx.db
      .updateTable('ci_builds')
      .set({ status: 'failed', failure_reason: reason, finished_at: at, updated_at: at, ...(runnerId === undefined ? {} : { runner_id: runnerId }) })
      .where('id', '=', job.id)
      .where('status', '=', job.status)
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) === 0) return false;
    await tx.db.deleteFrom('ci_pending_builds').where('build_id', '=', job.id).execute();
    if (!(await retryAutomatically(tx, { ...job, status: 'failed', failure_reason: reason }))) await processLater(tx.db, job.pipeline_id);
    return true;
  });
}
