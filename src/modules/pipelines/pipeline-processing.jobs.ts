// Processing a pipeline after any change of its jobs, from the durable queue, so that neither a
// crash nor a restart leaves a pipeline stuck.
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import type { CiPipelineRow } from '../../db/schema.ts';
import { isRepositoryReadOnly, repositoryDir } from '../../domain/project-repository.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { deleteRef, resolveRef, updateRef } from '../../git/refs.ts';
import { type RunningJob, defineJobKind, enqueue } from '../../jobs/queue.ts';
import { CREATE_DOWNSTREAM, PROCESS_PIPELINE, persistentRef, processLater } from './pipeline-work.ts';
import { createDownstream, mirrorToBridge } from './downstream.ts';
import { isCompleted, type Status } from '../../ci/status.ts';
import { processInTransaction } from './processing.ts';

/** How long a pipeline whose repository a storage move holds waits before it is processed again. */
const READ_ONLY_RETRY_MS = 30_000;

export const processPipelineJob = defineJobKind({
  ...PROCESS_PIPELINE,
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
  const repository = { kind: 'project', id: before.id, storage: before.repository_storage } as const;
  // The ref exists before any job can be handed to a runner. It is written under a push lease;
  // while a storage move holds the repository, the pipeline is processed again a little later.
  if (dir !== null && !isCompleted(before.status as Status) && (await resolveRef(dir, persistentRef(pipelineId))) === null) {
    try {
      await withRepositoryWrite(ctx, repository, () => updateRef(dir, persistentRef(pipelineId), before.sha));
    } catch (error) {
      if (!isRepositoryReadOnly(error)) throw error;
      await withTransaction(ctx, async (tx) => {
        await processLater(tx.db, pipelineId, new Date(Date.now() + READ_ONLY_RETRY_MS));
        await job?.complete(tx.db);
      });
      return null;
    }
  }
  const processed = await withTransaction(ctx, async (tx) => {
    const result = await processInTransaction(tx, pipelineId);
    // Delayed jobs become pending at their time: the pipeline is processed again then.
    for (const due of result?.dueTimes ?? []) await processLater(tx.db, pipelineId, due);
    for (const bridgeId of result?.pendingBridges ?? []) await enqueue(tx.db, CREATE_DOWNSTREAM, { bridgeId }, { dedupeKey: String(bridgeId) });
    await job?.complete(tx.db);
    return result;
  });
  if (processed && isCompleted(processed.pipeline.status as Status)) {
    // Best effort, as ever: a ref a storage move keeps is only a hidden ref too many.
    if (dir !== null) await withRepositoryWrite(ctx, repository, () => deleteRef(dir, persistentRef(pipelineId))).catch(() => undefined);
    await mirrorToBridge(ctx, processed.pipeline);
  }
  return processed?.pipeline ?? null;
}

export const createDownstreamJob = defineJobKind({
  ...CREATE_DOWNSTREAM,
  run: async (ctx, payload, job) => {
    const saved = await createDownstream(ctx, payload.bridgeId, (db) => job.complete(db));
    if (!saved) await withTransaction(ctx, (tx) => job.complete(tx.db));
  },
});
