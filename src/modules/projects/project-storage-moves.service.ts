// Scheduling moves of projects' repositories to other storages (spec Part 2 §4.12; the platform's
// project repository storage moves): one project's (also what PUT /projects/:id with
// repository_storage does), or every project of a storage, in the background. A scheduled move
// makes the project read-only in the same transaction that records it and enqueues its work.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import type { ProjectRepositoryStorageMoveRow } from '../../db/schema.ts';
import { MOVE_STATE, scheduleMovesOn } from '../../domain/repository-storage-moves.ts';
import { applicationSettings, chooseRepositoryStorage } from '../../domain/settings/application-settings.ts';
import { NOT_INCLUDED } from '../../domain/validation.ts';
import { storageDirectory } from '../../git/storages.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';

export const projectStorageMoveDeclaration = {
  name: 'project.repository_storage_move',
  payload: Type.Object({ moveId: Type.Integer() }, { additionalProperties: false }),
  maxAttempts: 3,
} satisfies JobDeclaration;

export const bulkProjectStorageMovesDeclaration = {
  name: 'project.repository_storage_moves.bulk',
  payload: Type.Object({ source: Type.String({ minLength: 1 }), destination: Type.Union([Type.String({ minLength: 1 }), Type.Null()]) }, { additionalProperties: false }),
  maxAttempts: 5,
} satisfies JobDeclaration;

/**
 * Schedules a move of the project's repository from the storage it is on to `destination` (when
 * null, one chosen by the storages' weights). 400 for a storage that is not configured, and for a
 * project that is read-only already (another move holds it).
 */
export async function scheduleProjectStorageMove(ctx: ServiceContext, projectId: number, destination: string | null): Promise<ProjectRepositoryStorageMoveRow> {
  const { repositoryStorages } = ctx.config;
  if (destination !== null && storageDirectory(repositoryStorages, destination) === null) throw invalidFields({ destination_storage_name: [NOT_INCLUDED] });
  const weights = (await applicationSettings(ctx.db)).repository_storages_weighted;
  return withTransaction(ctx, async (tx) => {
    const taken = await tx.db
      .updateTable('projects')
      .set({ repository_read_only: true })
      .where('id', '=', projectId)
      .where('repository_read_only', '=', false)
      .returning('repository_storage')
      .executeTakeFirst();
    if (!taken) throw invalidFields({ project: ['is read-only'] });
    const now = ctx.now().toISOString();
    const move = await tx.db
      .insertInto('project_repository_storage_moves')
      .values({
        project_id: projectId,
        state: MOVE_STATE.scheduled,
        source_storage_name: taken.repository_storage,
        destination_storage_name: destination ?? chooseRepositoryStorage({ repository_storages_weighted: weights }, Object.keys(repositoryStorages), Math.random(), taken.repository_storage),
        error_message: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await enqueue(tx.db, projectStorageMoveDeclaration, { moveId: move.id });
    return move;
  });
}

/** Enqueues the scheduling of a move for every project on `source` (the caller has checked both names). */
export async function scheduleBulkProjectStorageMoves(ctx: ServiceContext, source: string, destination: string | null): Promise<void> {
  await enqueue(ctx.db, bulkProjectStorageMovesDeclaration, { source, destination });
}

/** The bulk job's work: a move for each writable project on `source` (domain/repository-storage-moves). */
export function scheduleStorageMovesOn(ctx: ServiceContext, source: string, destination: string | null): Promise<number> {
  return scheduleMovesOn(ctx, 'projects', source, (id) => scheduleProjectStorageMove(ctx, id, destination));
}
