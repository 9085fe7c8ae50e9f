// Expired job artifacts go, every seven minutes, as the platform's ExpireBuildArtifactsWorker and
// Ci::JobArtifacts::DestroyAllExpiredService remove them: rows whose `expire_at` has passed, in
// batches, their files through the job queue after the rows. Kept artifacts (`keep`) have no
// expiry, and a job's log (its `trace` artifact) is never expired, as the platform's service skips
// it. A locked pipeline's artifacts stay however old: a project that keeps its latest artifacts
// makes locked pipelines, and a pipeline stays locked until a newer pipeline of its ref has
// succeeded with an archive (Ci::UnlockArtifactsService), which this task also records. Every step
// is safe to repeat, and to run on two nodes at once: a row is deleted, and its files removed, by
// whichever deletes it first.
import { sql } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { systemContext, withTransaction } from '../../core/context.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { removeArtifactFilesLater } from '../../storage/deferred-removal.ts';

/** Rows per batch, batches per run and the time a run may take, as the platform's service bounds them. */
export const EXPIRY_BATCH = 100;
const MAX_BATCHES = 500;
const MAX_RUN_MS = 5 * 60 * 1000;

/** Unlocks, a batch at a time, the locked pipelines that a newer successful pipeline of their ref (with an archive) supersedes. */
async function unlockSupersededPipelines(ctx: ServiceContext, deadline: number): Promise<number> {
  let unlocked = 0;
  for (let batch = 0; batch < MAX_BATCHES && Date.now() < deadline; batch++) {
    const superseded = await ctx.db
      .selectFrom('ci_pipelines as p')
      .select('p.id')
      .where('p.locked', '=', true)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('ci_pipelines as q')
            .select(sql<number>`1`.as('one'))
            .whereRef('q.project_id', '=', 'p.project_id')
            .whereRef('q.ref', '=', 'p.ref')
            .whereRef('q.tag', '=', 'p.tag')
            .whereRef('q.id', '>', 'p.id')
            .where('q.status', '=', 'success')
            .where(({ exists: has, selectFrom: from }) =>
              has(
                from('ci_builds as b')
                  .innerJoin('ci_job_artifacts as a', 'a.build_id', 'b.id')
                  .select(sql<number>`1`.as('one'))
                  .whereRef('b.pipeline_id', '=', 'q.id')
                  .where('b.retried', '=', false)
                  .where('a.file_type', '=', 'archive'),
              ),
            ),
        ),
      )
      .orderBy('p.id')
      .limit(EXPIRY_BATCH)
      .execute();
    if (superseded.length === 0) break;
    await ctx.db.updateTable('ci_pipelines').set({ locked: false }).where('id', 'in', superseded.map((p) => p.id)).execute();
    unlocked += superseded.length;
    if (superseded.length < EXPIRY_BATCH) break;
  }
  return unlocked;
}

/** Removes the artifacts that expired before now, unless their pipeline is locked; returns how many rows went. */
export async function removeExpiredArtifacts(ctx: ServiceContext): Promise<number> {
  const deadline = Date.now() + MAX_RUN_MS;
  await unlockSupersededPipelines(ctx, deadline);
  const now = ctx.now().toISOString();
  let removed = 0;
  for (let batch = 0; batch < MAX_BATCHES && Date.now() < deadline; batch++) {
    const expired = await ctx.db
      .selectFrom('ci_job_artifacts as a')
      .innerJoin('ci_builds as b', 'b.id', 'a.build_id')
      .innerJoin('ci_pipelines as p', 'p.id', 'b.pipeline_id')
      .select('a.id')
      .where('a.expire_at', '<', now)
      .where('a.file_type', '!=', 'trace')
      .where('p.locked', '=', false)
      .orderBy('a.expire_at')
      .limit(EXPIRY_BATCH)
      .execute();
    if (expired.length === 0) break;
    removed += await withTransaction(ctx, async (tx) => {
      // The expiry is read again: artifacts kept meanwhile stay.
      const rows = await tx.db
        .deleteFrom('ci_job_artifacts')
        .where('id', 'in', expired.map((a) => a.id))
        .where('expire_at', '<', now)
        .returning('file_path')
        .execute();
      await removeArtifactFilesLater(tx.db, rows.map((r) => r.file_path));
      return rows.length;
    });
    if (expired.length < EXPIRY_BATCH) break;
  }
  return removed;
}

export const removeExpiredCiArtifactsTask: PeriodicTask = {
  name: 'remove_expired_ci_artifacts',
  everySeconds: 7 * 60,
  run: async (deps) => void (await removeExpiredArtifacts(systemContext(deps))),
};
