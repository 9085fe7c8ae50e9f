// The background work of projects' repositories: removing one whose project is gone (or has moved
// away from its storage), and moving one to another storage (one recorded move at a time, and in
// bulk: every project of a storage). All are safe to run again.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';
import path from 'node:path';
import { deleteRepository, projectWikiRelativePath, repositoryPath } from '../../git/repository.ts';
import { storageDirectory } from '../../git/storages.ts';
import { PermanentJobError, defineJobKind, enqueue } from '../../jobs/queue.ts';
import { bulkProjectStorageMovesDeclaration, projectStorageMoveDeclaration, scheduleStorageMovesOn } from './project-storage-moves.service.ts';
import { failProjectStorageMove, runProjectStorageMove } from './storage-move-work.ts';

const ProjectStorage = Type.Object({ projectId: Type.Integer(), storage: Type.String({ minLength: 1 }) }, { additionalProperties: false });

function storageDir(ctx: ServiceContext, storage: string): string {
  const dir = storageDirectory(ctx.config.repositoryStorages, storage);
  if (dir === null) throw new PermanentJobError(`repository storage "${storage}" is not configured`);
  return dir;
}

/** Removes the project's repository and its wiki's from a storage, unless the project (still or again) lives there. */
export const removeRepositoryJob = defineJobKind({
  name: 'project.repository.remove',
  payload: ProjectStorage,
  async run(ctx, { projectId, storage }) {
    const project = await ctx.db.selectFrom('projects').select('repository_storage').where('id', '=', projectId).executeTakeFirst();
    if (project?.repository_storage === storage) return;
    const dir = storageDir(ctx, storage);
    await deleteRepository(repositoryPath(dir, projectId));
    // The project's wiki goes with it.
    await deleteRepository(path.join(dir, projectWikiRelativePath(projectId)));
  },
});

/** A project repository storage move, run (or resumed) through its states (storage-move-work.ts). */
export const projectStorageMoveJob = defineJobKind({
  ...projectStorageMoveDeclaration,
  // A large repository takes a while to copy and check: the claim outlasts it.
  lockSeconds: 60 * 60,
  run: (ctx, { moveId }, job) => runProjectStorageMove(ctx, moveId, job),
  // Given up for good: the project is left where it was, writable again.
  failed: (ctx, { moveId }) => failProjectStorageMove(ctx, moveId, null),
});

/** Schedules a move for every project of a storage (POST /project_repository_storage_moves). */
export const bulkProjectStorageMovesJob = defineJobKind({
  ...bulkProjectStorageMovesDeclaration,
  async run(ctx, { source, destination }) {
    await scheduleStorageMovesOn(ctx, source, destination);
  },
});

/**
 * The move job of earlier releases, which held the project read-only with no record of its own:
 * one still queued becomes a recorded move, which then runs as any other.
 */
export const moveRepositoryJob = defineJobKind({
  name: 'project.repository.move',
  payload: ProjectStorage,
  async run(ctx, { projectId, storage }, job) {
    await withTransaction(ctx, async (tx) => {
      const project = await tx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', projectId).executeTakeFirst();
      if (project) {
        const now = ctx.now().toISOString();
        const move = await tx.db
          .insertInto('project_repository_storage_moves')
          .values({ project_id: projectId, state: MOVE_STATE.scheduled, source_storage_name: project.repository_storage, destination_storage_name: storage, error_message: null, created_at: now, updated_at: now })
          .returning('id')
          .executeTakeFirstOrThrow();
        await enqueue(tx.db, projectStorageMoveDeclaration, { moveId: move.id });
      }
      await job.complete(tx.db);
    });
  },
  async failed(ctx, { projectId }) {
    await ctx.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', projectId).execute();
  },
});
