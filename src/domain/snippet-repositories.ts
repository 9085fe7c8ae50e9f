// Where a snippet's repository lives, and its removal when snippets go (one by one, or all of a
// project's or of an author's, from the services that delete those): the rows go in the caller's
// transaction and the repositories' removal is enqueued in it, so that it happens exactly when
// they went, even if the server stops right after. Removing again is harmless.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB, SnippetRow } from '../db/schema.ts';
import { deleteRepository, repositoryExists, snippetRepositoryPath } from '../git/repository.ts';
import { storageDirectory } from '../git/storages.ts';
import { PermanentJobError, defineJobKind, enqueueMany } from '../jobs/queue.ts';

/** The snippet's repository directory on the storage it records; null when that storage is not configured. */
export function snippetRepositoryDir(config: Pick<Config, 'repositoryStorages'>, snippet: Pick<SnippetRow, 'id' | 'repository_storage'>): string | null {
  const dir = storageDirectory(config.repositoryStorages, snippet.repository_storage);
  return dir === null ? null : snippetRepositoryPath(dir, snippet.id);
}

/** The snippet's repository when it exists; null otherwise. */
export function existingSnippetRepository(config: Pick<Config, 'repositoryStorages'>, snippet: Pick<SnippetRow, 'id' | 'repository_storage'>): string | null {
  const dir = snippetRepositoryDir(config, snippet);
  return dir !== null && repositoryExists(dir) ? dir : null;
}

const SnippetStorage = Type.Object({ snippetId: Type.Integer(), storage: Type.String({ minLength: 1 }) }, { additionalProperties: false });

/** Removes a snippet's repository from a storage, unless the snippet (still or again) lives there. */
export const removeSnippetRepositoryJob = defineJobKind({
  name: 'snippet.repository.remove',
  payload: SnippetStorage,
  async run(ctx, { snippetId, storage }) {
    const snippet = await ctx.db.selectFrom('snippets').select('repository_storage').where('id', '=', snippetId).executeTakeFirst();
    if (snippet?.repository_storage === storage) return;
    const dir = storageDirectory(ctx.config.repositoryStorages, storage);
    if (dir === null) throw new PermanentJobError(`repository storage "${storage}" is not configured`);
    await deleteRepository(snippetRepositoryPath(dir, snippetId));
  },
});

const REMOVAL_BATCH = 500;

/** Which snippets go: one, a project's, or an author's (personal and project ones alike, as the platform's user removal does). */
export type SnippetSelection = { snippetId: number } | { projectId: number } | { authorId: number };

/**
 * Deletes the snippets (and their storage moves) in `db`'s transaction and enqueues the removal
 * of their repositories in it. Returns how many went.
 */
export async function removeSnippets(db: Kysely<DB>, selection: SnippetSelection): Promise<number> {
  let query = db.selectFrom('snippets').select(['id', 'repository_storage']);
  if ('snippetId' in selection) query = query.where('id', '=', selection.snippetId);
  else if ('projectId' in selection) query = query.where('project_id', '=', selection.projectId);
  else query = query.where('author_id', '=', selection.authorId);
  const doomed = await query.execute();
  // A batch per statement, well under either database's limit on bound values.
  for (let at = 0; at < doomed.length; at += REMOVAL_BATCH) {
    const batch = doomed.slice(at, at + REMOVAL_BATCH);
    const ids = batch.map((s) => s.id);
    await db.deleteFrom('snippet_repository_storage_moves').where('snippet_id', 'in', ids).execute();
    // Their comments go with them (the platform's `has_many :notes, dependent: :destroy`).
    await db.deleteFrom('notes').where('noteable_type', '=', 'Snippet').where('noteable_id', 'in', ids).execute();
    await db.deleteFrom('snippets').where('id', 'in', ids).execute();
    await enqueueMany(db, removeSnippetRepositoryJob, batch.map((s) => ({ payload: { snippetId: s.id, storage: s.repository_storage } })));
  }
  return doomed.length;
}
