// Moving snippets' repositories between storages (the platform's snippet repository storage
// moves): one snippet's, or every snippet of a storage in the background. A scheduled move makes
// the snippet read-only in the transaction that records it and enqueues its work; the work goes
// through the platform's states, each recorded before the next begins, so that a move cut short
// resumes where it was: scheduled → started (the pushes under way on any node waited for, the copy, checked against an original that did not
// change meanwhile) → replicated (the switch, in one transaction that makes the snippet writable
// again) → finished (the original removed). A failure before the switch leaves the snippet
// where it was, writable, and the move `failed`.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { waitForPushes } from '../../domain/push-leases.ts';
import { MOVE_STATE, scheduleMovesOn } from '../../domain/repository-storage-moves.ts';
import { applicationSettings, chooseRepositoryStorage } from '../../domain/settings/application-settings.ts';
import { NOT_INCLUDED } from '../../domain/validation.ts';
import { replicateRepository } from '../../git/replicate.ts';
import { deleteRepository, snippetRepositoryPath } from '../../git/repository.ts';
import { storageDirectory } from '../../git/storages.ts';
import { type JobDeclaration, enqueue } from '../../jobs/queue.ts';

export const snippetStorageMoveDeclaration = {
  name: 'snippet.repository_storage_move',
  payload: Type.Object({ moveId: Type.Integer() }, { additionalProperties: false }),
  maxAttempts: 3,
} satisfies JobDeclaration;

export const bulkSnippetStorageMovesDeclaration = {
  name: 'snippet.repository_storage_moves.bulk',
  payload: Type.Object({ source: Type.String({ minLength: 1 }), destination: Type.Union([Type.String({ minLength: 1 }), Type.Null()]) }, { additionalProperties: false }),
  maxAttempts: 5,
} satisfies JobDeclaration;

/** How long a move waits for the pushes under way when it starts; they are refused from then on. */
const PUSH_WAIT_MS = 10 * 60 * 1000;

/**
 * Schedules a move of the snippet's repository to `destination` (when null, one chosen by the
 * storages' weights); returns the move's id. 400 for a storage that is not configured, and for a
 * snippet another move holds.
 */
export async function scheduleSnippetStorageMove(ctx: ServiceContext, snippetId: number, destination: string | null): Promise<number> {
  const { repositoryStorages } = ctx.config;
  if (destination !== null && storageDirectory(repositoryStorages, destination) === null) throw invalidFields({ destination_storage_name: [NOT_INCLUDED] });
  const weights = (await applicationSettings(ctx.db)).repository_storages_weighted;
  return withTransaction(ctx, async (tx) => {
    const taken = await tx.db
      .updateTable('snippets')
      .set({ repository_read_only: true })
      .where('id', '=', snippetId)
      .where('repository_read_only', '=', false)
      .returning('repository_storage')
      .executeTakeFirst();
    if (!taken) throw invalidFields({ snippet: ['is read-only'] });
    const now = ctx.now().toISOString();
    const move = await tx.db
      .insertInto('snippet_repository_storage_moves')
      .values({
        snippet_id: snippetId,
        state: MOVE_STATE.scheduled,
        source_storage_name: taken.repository_storage,
        destination_storage_name: destination ?? chooseRepositoryStorage({ repository_storages_weighted: weights }, Object.keys(repositoryStorages), Math.random(), taken.repository_storage),
        error_message: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await enqueue(tx.db, snippetStorageMoveDeclaration, { moveId: move.id });
    return move.id;
  });
}

/** Enqueues the scheduling of a move for every snippet on `source` (the caller has checked both names). */
export async function scheduleBulkSnippetStorageMoves(ctx: ServiceContext, source: string, destination: string | null): Promise<void> {
  await enqueue(ctx.db, bulkSnippetStorageMovesDeclaration, { source, destination });
}

/** The bulk job's work: a move for each writable snippet on `source` (domain/repository-storage-moves). */
export function scheduleSnippetMovesOn(ctx: ServiceContext, source: string, destination: string | null): Promise<number> {
  return scheduleMovesOn(ctx, 'snippets', source, (id) => scheduleSnippetStorageMove(ctx, id, destination));
}

class MoveFailure extends Error {}

function directoryOf(ctx: ServiceContext, storage: string): string {
  const dir = storageDirectory(ctx.config.repositoryStorages, storage);
  if (dir === null) throw new MoveFailure(`repository storage "${storage}" is not configured`);
  return dir;
}

async function setState(ctx: ServiceContext, moveId: number, state: number, errorMessage: string | null = null): Promise<void> {
  await ctx.db
    .updateTable('snippet_repository_storage_moves')
    .set({ state, error_message: errorMessage, updated_at: ctx.now().toISOString() })
    .where('id', '=', moveId)
    .execute();
}

/** Runs (or resumes) a move; a MoveFailure fails it at once, other errors are retried by the queue. */
export async function runSnippetStorageMove(ctx: ServiceContext, moveId: number): Promise<void> {
  const move = await ctx.db.selectFrom('snippet_repository_storage_moves').selectAll().where('id', '=', moveId).executeTakeFirst();
  if (!move) return;
  if (move.state === MOVE_STATE.initial || move.state === MOVE_STATE.scheduled || move.state === MOVE_STATE.started) {
    try {
      await setState(ctx, moveId, MOVE_STATE.started);
      const snippet = await ctx.db.selectFrom('snippets').select(['id', 'repository_storage']).where('id', '=', move.snippet_id).executeTakeFirst();
      if (!snippet) throw new MoveFailure('the snippet is gone');
      if (snippet.repository_storage !== move.source_storage_name) throw new MoveFailure(`the snippet is on storage "${snippet.repository_storage}", not "${move.source_storage_name}"`);
      if (move.source_storage_name === move.destination_storage_name) throw new MoveFailure('the source and destination storages are the same');
      // Read-only since scheduling: the pushes already under way, on any node, are waited for.
      await waitForPushes(ctx, [{ kind: 'snippet', id: snippet.id }], PUSH_WAIT_MS);
      const destinationDir = directoryOf(ctx, move.destination_storage_name);
      const destination = snippetRepositoryPath(destinationDir, snippet.id);
      await replicateRepository(snippetRepositoryPath(directoryOf(ctx, move.source_storage_name), snippet.id), destination, destinationDir);
      await withTransaction(ctx, async (tx) => {
        const switched = await tx.db
          .updateTable('snippets')
          .set({ repository_storage: move.destination_storage_name, repository_read_only: false })
          .where('id', '=', snippet.id)
          .where('repository_storage', '=', move.source_storage_name)
          .executeTakeFirst();
        if (Number(switched.numUpdatedRows) === 0) throw new MoveFailure('the snippet left its storage during the move');
        await setState(tx, moveId, MOVE_STATE.replicated);
      });
    } catch (error) {
      if (!(error instanceof MoveFailure)) {
        await ctx.db.updateTable('snippet_repository_storage_moves').set({ error_message: String((error as Error).message).slice(0, 1000) }).where('id', '=', moveId).execute();
        throw error;
      }
      await failSnippetStorageMove(ctx, moveId, error.message);
      return;
    }
  }
  const replicated = await ctx.db.selectFrom('snippet_repository_storage_moves').selectAll().where('id', '=', moveId).executeTakeFirstOrThrow();
  if (replicated.state !== MOVE_STATE.replicated) return;
  // The original goes, unless the snippet has since moved back there.
  const snippet = await ctx.db.selectFrom('snippets').select('repository_storage').where('id', '=', replicated.snippet_id).executeTakeFirst();
  const sourceDir = storageDirectory(ctx.config.repositoryStorages, replicated.source_storage_name);
  if (sourceDir !== null && snippet?.repository_storage !== replicated.source_storage_name) await deleteRepository(snippetRepositoryPath(sourceDir, replicated.snippet_id));
  await setState(ctx, moveId, MOVE_STATE.finished);
}

/** Gives a move up before its switch: the snippet stays where it was and is writable again; the copy, if any, goes. */
export async function failSnippetStorageMove(ctx: ServiceContext, moveId: number, reason: string | null): Promise<void> {
  const move = await ctx.db.selectFrom('snippet_repository_storage_moves').selectAll().where('id', '=', moveId).executeTakeFirst();
  if (!move) return;
  if (move.state === MOVE_STATE.replicated) return setState(ctx, moveId, MOVE_STATE.cleanup_failed, reason ?? move.error_message);
  if (move.state !== MOVE_STATE.initial && move.state !== MOVE_STATE.scheduled && move.state !== MOVE_STATE.started) return;
  const snippet = await ctx.db.selectFrom('snippets').select('repository_storage').where('id', '=', move.snippet_id).executeTakeFirst();
  const stillThere = snippet?.repository_storage === move.source_storage_name;
  const destinationDir = storageDirectory(ctx.config.repositoryStorages, move.destination_storage_name);
  if (stillThere && destinationDir !== null && move.destination_storage_name !== move.source_storage_name) {
    await deleteRepository(snippetRepositoryPath(destinationDir, move.snippet_id)).catch(() => {});
  }
  await withTransaction(ctx, async (tx) => {
    await setState(tx, moveId, MOVE_STATE.failed, reason ?? move.error_message);
    if (stillThere) await tx.db.updateTable('snippets').set({ repository_read_only: false }).where('id', '=', move.snippet_id).execute();
  });
}
