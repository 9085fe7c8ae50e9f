// The background work of projects' repositories: removing one whose project is gone (or has moved
// away from its storage), and moving one to another storage. Both are safe to run again.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { copyRepository, deleteRepository, repositoryPath } from '../../git/repository.ts';
import { storageDirectory } from '../../git/storages.ts';
import { PermanentJobError, defineJobKind, enqueue } from '../../jobs/queue.ts';

const ProjectStorage = Type.Object({ projectId: Type.Integer(), storage: Type.String({ minLength: 1 }) }, { additionalProperties: false });

function storageDir(ctx: ServiceContext, storage: string): string {
  const dir = storageDirectory(ctx.config.repositoryStorages, storage);
  if (dir === null) throw new PermanentJobError(`repository storage "${storage}" is not configured`);
  return dir;
}

/** Removes the project's repository from a storage, unless the project (still or again) lives there. */
export const removeRepositoryJob = defineJobKind({
  name: 'project.repository.remove',
  payload: ProjectStorage,
  async run(ctx, { projectId, storage }) {
    const project = await ctx.db.selectFrom('projects').select('repository_storage').where('id', '=', projectId).executeTakeFirst();
    if (project?.repository_storage === storage) return;
    await deleteRepository(repositoryPath(storageDir(ctx, storage), projectId));
  },
});

/**
 * Copies the repository to the new storage while the project is read-only, then records the new
 * storage, lifts read-only and enqueues the removal of the original in one transaction. Given up
 * for good, it leaves the project where it was, writable again.
 */
export const moveRepositoryJob = defineJobKind({
  name: 'project.repository.move',
  payload: ProjectStorage,
  maxAttempts: 3,
  async run(ctx, { projectId, storage }, job) {
    const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', projectId).executeTakeFirst();
    if (!project) return;
    const from = project.repository_storage;
    if (from !== storage) {
      const target = storageDir(ctx, storage);
      // What an attempt cut short left at the target belongs to this move.
      await deleteRepository(repositoryPath(target, projectId));
      const source = storageDirectory(ctx.config.repositoryStorages, from);
      if (source !== null) await copyRepository(projectId, source, target);
    }
    await withTransaction(ctx, async (tx) => {
      await tx.db.updateTable('projects').set({ repository_storage: storage, repository_read_only: false }).where('id', '=', projectId).execute();
      if (from !== storage) await enqueue(tx.db, removeRepositoryJob, { projectId, storage: from });
      await job.complete(tx.db);
    });
  },
  async failed(ctx, { projectId }) {
    await ctx.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', projectId).execute();
  },
});

/**
 * Marks the repository read-only and enqueues its move, in the caller's transaction; false when
 * it is read-only already (another move, or a write that holds it).
 */
export async function requestStorageMove(ctx: ServiceContext, projectId: number, storage: string): Promise<boolean> {
  const { db } = ctx;
  const taken = await db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', projectId).where('repository_read_only', '=', false).executeTakeFirst();
  if (Number(taken.numUpdatedRows) === 0) return false;
  await enqueue(db, moveRepositoryJob, { projectId, storage });
  return true;
}
