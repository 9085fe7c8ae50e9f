// Scheduling moves of the containers this module owns: groups (whose repositories would be their
// wikis). Quarry keeps no group repository yet, so a group's move records the request and
// finishes with nothing to copy, and a bulk move finds nothing to schedule. Project moves are the
// projects module's (project-storage-moves.service.ts), snippet moves the snippets module's.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';
import { applicationSettings, chooseRepositoryStorage } from '../../domain/settings/application-settings.ts';
import { NOT_INCLUDED } from '../../domain/validation.ts';
import { DEFAULT_STORAGE, storageDirectory } from '../../git/storages.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';

export const groupStorageMoveDeclaration = {
  name: 'group.repository_storage_move',
  payload: Type.Object({ moveId: Type.Integer() }, { additionalProperties: false }),
  maxAttempts: 3,
} satisfies JobDeclaration;

/** Whether a storage of this name is configured. */
export const storageConfigured = (ctx: Pick<ServiceContext, 'config'>, name: string): boolean => storageDirectory(ctx.config.repositoryStorages, name) !== null;

/** Records a move of the group's (wiki) repository and enqueues it; the group's storage is the default one. */
export async function scheduleGroupStorageMove(ctx: ServiceContext, groupId: number, destination: string | null): Promise<number> {
  if (destination !== null && !storageConfigured(ctx, destination)) throw invalidFields({ destination_storage_name: [NOT_INCLUDED] });
  const weights = (await applicationSettings(ctx.db)).repository_storages_weighted;
  return withTransaction(ctx, async (tx) => {
    const now = ctx.now().toISOString();
    const move = await tx.db
      .insertInto('group_repository_storage_moves')
      .values({
        group_id: groupId,
        state: MOVE_STATE.scheduled,
        source_storage_name: DEFAULT_STORAGE,
        destination_storage_name: destination ?? chooseRepositoryStorage({ repository_storages_weighted: weights }, Object.keys(ctx.config.repositoryStorages), Math.random(), DEFAULT_STORAGE),
        error_message: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await enqueue(tx.db, groupStorageMoveDeclaration, { moveId: move.id });
    return move.id;
  });
}

/** A group move's work: nothing to copy, so it goes through its states to finished at once. */
export async function runGroupStorageMove(ctx: ServiceContext, moveId: number): Promise<void> {
  const move = await ctx.db.selectFrom('group_repository_storage_moves').selectAll().where('id', '=', moveId).executeTakeFirst();
  if (!move || (move.state !== MOVE_STATE.scheduled && move.state !== MOVE_STATE.started)) return;
  const same = move.source_storage_name === move.destination_storage_name;
  await ctx.db
    .updateTable('group_repository_storage_moves')
    .set({
      state: same ? MOVE_STATE.failed : MOVE_STATE.finished,
      error_message: same ? 'the source and destination storages are the same' : null,
      updated_at: ctx.now().toISOString(),
    })
    .where('id', '=', moveId)
    .execute();
}
