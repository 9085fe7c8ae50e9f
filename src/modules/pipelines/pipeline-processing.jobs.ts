// Processing a pipeline after any change of its jobs, from the durable queue, so that neither a
// crash nor a restart leaves a pipeline stuck.
import { Type } from '@sinclair/typebox';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import type { CiPipelineRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { deleteRef, resolveRef, updateRef } from '../../git/refs.ts';
import { type RunningJob, defineJobKind, enqueue } from '../../jobs/queue.ts';
import { isCompleted, type Status } from '../../ci/status.ts';
import { processInTransaction } from './processing.ts';

/** The ref that keeps a pipeline's commit fetchable while it runs (the runner fetches it, notes §1.4). */
export const persistentRef = (pipelineId: number) => `refs/pipelines/${pipelineId}`;

const ProcessPayload = Type.Object({ pipelineId: Type.Integer() }, { additionalProperties: false });

export const processPipelineJob = defineJobKind({
  name: 'pipeline.process',
  payload: ProcessPayload,
  maxAttempts: 10,
  lockSeconds: 120,
  run: async (ctx, payload, job) => void (await processPipelineNow(ctx, payload.pipelineId, job)),
});

/** Processes a pipeline now, as its queued job would (the API answers a new pipeline processed). */
export async function processPipelineNow(ctx: ServiceContext, pipelineId: number, job?: RunningJob): Promise<CiPipelineRow | null> {
  const before = await ctx.db
    .selectFrom('ci_pipelines')
    .innerJoin('projects', 'projects.id', 'ci_pipelines.project_id')
    .select(['ci_pipelines.sha', 'ci_pipelines.status', 'projects.id', 'projects.repository_storage'])
    .where('ci_pipelines.id', '=', pipelineId)
    .executeTakeFirst();
  if (!before) {
    if (job) await withTransaction(ctx, (tx) => job.complete(tx.db));
    return null;
  }
  const dir = repositoryDir(ctx.config, before);
  // The ref exists before any job can be handed to a runner.
  if (dir !== null && !isCompleted(before.status as Status) && (await resolveRef(dir, persistentRef(pipelineId))) === null) {
    await updateRef(dir, persistentRef(pipelineId), before.sha);
  }
  const processed = await withTransaction(ctx, async (tx) => {
    const result = await processInTransaction(tx, pipelineId);
    // Delayed jobs become pending at their time: the pipeline is processed again then.
    for (const due of result?.dueTimes ?? []) {
      await enqueue(tx.db, processPipelineJob, { pipelineId }, { runAt: due, dedupeKey: `${pipelineId}@${due.toISOString()}` });
    }
    await job?.complete(tx.db);
    return result;
  });
  if (processed && dir !== null && isCompleted(processed.pipeline.status as Status)) {
    await deleteRef(dir, persistentRef(pipelineId)).catch(() => undefined);
  }
  return processed?.pipeline ?? null;
}
