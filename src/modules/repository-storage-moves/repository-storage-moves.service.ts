// Scheduling moves of the containers this module owns: groups (whose repository is their wiki). A
// group's move holds its wiki read-only from scheduling, copies it, and switches the group to the
// copy (a group without a wiki has nothing to copy). Project moves are the projects module's
// (project-storage-moves.service.ts), snippet moves the snippets module's.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { MOVE_STATE } from '../../domain/repository-storage-moves.ts';
import { applicationSettings, chooseRepositoryStorage } from '../../domain/settings/application-settings.ts';
import { NOT_INCLUDED } from '../../domain/validation.ts';
import { DEFAULT_STORAGE, storageDirectory } from '../../git/storages.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';
import { groupWikiStorage, groupsWithWikiOn, moveGroupWiki, setGroupWikiReadOnly } from '../wikis/index.ts';

export const groupStorageMoveDeclaration = {
  name: 'group.repository_storage_move',
  payload: Type.Object({ moveId: Type.Integer() }, { additionalProperties: false }),
  maxAttempts: 3,
} satisfies JobDeclaration;

/** Whether a storage of this name is configured. */
export const storageConfigured = (ctx: Pick<ServiceContext, 'config'>, name: string): boolean => storageDirectory(ctx.config.repositoryStorages, name) !== null;

/** Records a move of the group's wiki repository and enqueues it, holding the wiki read-only meanwhile. */
export async function scheduleGroupStorageMove(ctx: ServiceContext, groupId: number, destination: string | null): Promise<number> {
  if (destination !== null && !storageConfigured(ctx, destination)) throw invalidFields({ destination_storage_name: [NOT_INCLUDED] });
  const weights = (await applicationSettings(ctx.db)).repository_storages_weighted;
  const source = (await groupWikiStorage(ctx.db, groupId))?.repository_storage ?? DEFAULT_STORAGE;
  return withTransaction(ctx, async (tx) => {
    const now = ctx.now().toISOString();
    if (destination !== source) await setGroupWikiReadOnly(tx.db, groupId, true);
    const move = await tx.db
      .insertInto('group_repository_storage_moves')
      .values({
        group_id: groupId,
        state: MOVE_STATE.scheduled,
        source_storage_name: source,
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

/** Schedules a move for every group whose wiki is on the source storage (POST /group_repository_storage_moves). */
export async function scheduleGroupStorageMovesOn(ctx: ServiceContext, source: string, destination: string | null): Promise<void> {
  for (const groupId of await groupsWithWikiOn(ctx.db, source)) await scheduleGroupStorageMove(ctx, groupId, destination);
}

/** A group move's work: the wiki copied to the destination and switched to (nothing to copy without one), then finished. */
export async function runGroupStorageMove(ctx: ServiceContext, moveId: number): Promise<void> {
  const move = await ctx.db.selectFrom('group_repository_storage_moves').selectAll().where('id', '=', moveId).executeTakeFirst();
  if (!move || (move.state !== MOVE_STATE.scheduled && move.state !== MOVE_STATE.started)) return;
  const same = move.source_storage_name === move.destination_storage_name;
  let error: string | null = same ? 'the source and destination storages are the same' : null;
  if (!same) {
    try {
      await moveGroupWiki(ctx, move.group_id, move.destination_storage_name);
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
  }
  await withTransaction(ctx, async (tx) => {
    // A move that failed leaves the wiki where it was, writable again.
    if (error !== null) await setGroupWikiReadOnly(tx.db, move.group_id, false);
    await tx.db
      .updateTable('group_repository_storage_moves')
      .set({ state: error === null ? MOVE_STATE.finished : MOVE_STATE.failed, error_message: error, updated_at: ctx.now().toISOString() })
      .where('id', '=', moveId)
      .execute();
  });
}
