// Where a wiki's repository is. A project's wiki lives on its project's storage, beside the
// project's repository (`<hash>.wiki.git`); a group's lives on the storage its
// group_wiki_repositories row names. Either is created on the wiki's first write, empty on the
// wiki branch; until then the wiki reads as having no pages.
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import type { Config } from '../../config.ts';
import type { DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { repositoryReadOnly } from '../../domain/project-repository.ts';
import { type PushedRepository, waitForPushes, withRepositoryWrite } from '../../domain/push-leases.ts';
import { copyRepositoryAt, deleteRepository, ensureRepository, groupWikiRelativePath, projectWikiRelativePath, repositoryExists } from '../../git/repository.ts';
import { DEFAULT_STORAGE, storageDirectory } from '../../git/storages.ts';
import { WIKI_BRANCH } from './wiki-pages.ts';

/** How long a group wiki's move waits for the pushes under way when it starts. */
const PUSH_WAIT_MS = 10 * 60 * 1000;

/** Whose wiki: a project's, or a group's (premium). */
export type WikiContainer = { kind: 'project'; project: Pick<ProjectRow, 'id' | 'repository_storage'> } | { kind: 'group'; group: Pick<NamespaceRow, 'id'> };

/** The wiki's repository as a push's lease names it. */
export const wikiRepository = (container: WikiContainer): PushedRepository =>
  container.kind === 'project' ? { kind: 'project_wiki', id: container.project.id } : { kind: 'group_wiki', id: container.group.id };

/** The wiki's repository path relative to a storage. */
export const wikiRelativePath = (container: WikiContainer): string =>
  container.kind === 'project' ? projectWikiRelativePath(container.project.id) : groupWikiRelativePath(container.group.id);

/** The storage a group's wiki is on; null when the group has no wiki repository yet. */
export async function groupWikiStorage(db: Kysely<DB>, groupId: number): Promise<{ repository_storage: string; read_only: boolean } | null> {
  const row = await db.selectFrom('group_wiki_repositories').select(['repository_storage', 'read_only']).where('group_id', '=', groupId).executeTakeFirst();
  return row ? { repository_storage: row.repository_storage, read_only: Boolean(row.read_only) } : null;
}

/** The storage the wiki's repository is on (or would be made on: a group's on the default storage). */
async function wikiStorage(db: Kysely<DB>, container: WikiContainer): Promise<string> {
  return container.kind === 'project' ? container.project.repository_storage : ((await groupWikiStorage(db, container.group.id))?.repository_storage ?? DEFAULT_STORAGE);
}

/** Where the wiki's repository is on a storage; null when the storage is not configured. */
function wikiPathOn(config: Config, container: WikiContainer, storage: string): string | null {
  const dir = storageDirectory(config.repositoryStorages, storage);
  return dir === null ? null : path.join(dir, wikiRelativePath(container));
}

/** Where the wiki's repository is (or would be made); null when its storage is not configured. */
async function wikiPath(db: Kysely<DB>, config: Config, container: WikiContainer): Promise<string | null> {
  return wikiPathOn(config, container, await wikiStorage(db, container));
}

/** The wiki's repository when it exists; null when the wiki has none yet (it reads as empty). */
export async function existingWikiDir(db: Kysely<DB>, config: Config, container: WikiContainer): Promise<string | null> {
  const dir = await wikiPath(db, config, container);
  return dir !== null && repositoryExists(dir) ? dir : null;
}

/** Refuses a write while a storage move copies the wiki (read afresh: the flag is set by the move). */
export async function assertWikiWritable(db: Kysely<DB>, container: WikiContainer): Promise<void> {
  const readOnly =
    container.kind === 'project'
      ? (await db.selectFrom('projects').select('repository_read_only').where('id', '=', container.project.id).executeTakeFirst())?.repository_read_only
      : (await groupWikiStorage(db, container.group.id))?.read_only;
  if (readOnly) throw repositoryReadOnly();
}

/** A group's wiki is recorded (on the default storage) before its repository is made, so that no repository is ever placed that no row owns. */
async function recordGroupWiki(ctx: ServiceContext, container: WikiContainer): Promise<void> {
  if (container.kind !== 'group') return;
  await ctx.db
    .insertInto('group_wiki_repositories')
    .values({ group_id: container.group.id, repository_storage: DEFAULT_STORAGE, created_at: ctx.now().toISOString() })
    .onConflict((oc) => oc.column('group_id').doNothing())
    .execute();
}

/** The wiki's repository on the storage, made when it has none. */
async function ensureWikiOn(ctx: ServiceContext, container: WikiContainer, storage: string): Promise<string> {
  const dir = wikiPathOn(ctx.config, container, storage);
  if (dir === null) throw new Error('the wiki\'s repository storage is not configured');
  await ensureRepository(dir, WIKI_BRANCH);
  return dir;
}

/** The wiki's repository for a push (which takes its own lease), made when it has none. */
export async function wikiDirForWrite(ctx: ServiceContext, container: WikiContainer): Promise<string> {
  await assertWikiWritable(ctx.db, container);
  await recordGroupWiki(ctx, container);
  return ensureWikiOn(ctx, container, await wikiStorage(ctx.db, container));
}

/**
 * Runs a write the API makes to the wiki's repository (made first when it has none) under a push
 * lease, as a push runs: refused with the API's 400 while a storage move holds the wiki (or after
 * it moved it), and waited for by a move that begins meanwhile.
 */
export async function withWikiWrite<T>(ctx: ServiceContext, container: WikiContainer, write: (gitDir: string) => Promise<T>): Promise<T> {
  await recordGroupWiki(ctx, container);
  const storage = await wikiStorage(ctx.db, container);
  return withRepositoryWrite(ctx, { ...wikiRepository(container), storage }, async () => write(await ensureWikiOn(ctx, container, storage)));
}

/** Holds a group's wiki read-only while a storage move copies it, or lets it be written again; nothing for a group without one. */
export async function setGroupWikiReadOnly(db: Kysely<DB>, groupId: number, readOnly: boolean): Promise<void> {
  await db.updateTable('group_wiki_repositories').set({ read_only: readOnly }).where('group_id', '=', groupId).execute();
}

/**
 * Moves a group's wiki repository to another storage: copied, recorded there (writable again),
 * then the original removed. A group without a wiki has nothing to move.
 */
export async function moveGroupWiki(ctx: ServiceContext, groupId: number, destination: string): Promise<void> {
  const current = await groupWikiStorage(ctx.db, groupId);
  if (current === null) return;
  const fromDir = storageDirectory(ctx.config.repositoryStorages, current.repository_storage);
  const toDir = storageDirectory(ctx.config.repositoryStorages, destination);
  if (fromDir === null || toDir === null) throw new Error(`repository storage "${fromDir === null ? current.repository_storage : destination}" is not configured`);
  const relative = groupWikiRelativePath(groupId);
  // Read-only since scheduling: the pushes already under way, on any node, are waited for.
  await waitForPushes(ctx, [{ kind: 'group_wiki', id: groupId }], PUSH_WAIT_MS);
  // What a copy cut short left at the destination belongs to this move.
  await deleteRepository(path.join(toDir, relative));
  const copied = await copyRepositoryAt(relative, fromDir, toDir);
  await ctx.db.updateTable('group_wiki_repositories').set({ repository_storage: destination, read_only: false }).where('group_id', '=', groupId).execute();
  if (copied) await deleteRepository(path.join(fromDir, relative));
}

/** The storages of the wikis of a group's subtree, to remove once the groups are gone. */
export async function groupWikisIn(db: Kysely<DB>, groupIds: readonly number[]): Promise<{ group_id: number; repository_storage: string }[]> {
  if (groupIds.length === 0) return [];
  return db.selectFrom('group_wiki_repositories').select(['group_id', 'repository_storage']).where('group_id', 'in', groupIds).execute();
}

/** Removes a removed group's wiki repository from its storage. */
export async function removeGroupWiki(config: Config, groupId: number, storage: string): Promise<void> {
  const dir = storageDirectory(config.repositoryStorages, storage);
  if (dir !== null) await deleteRepository(path.join(dir, groupWikiRelativePath(groupId)));
}

/** The groups whose wikis are on a storage, for a bulk storage move. */
export async function groupsWithWikiOn(db: Kysely<DB>, storage: string): Promise<number[]> {
  const rows = await db.selectFrom('group_wiki_repositories').select('group_id').where('repository_storage', '=', storage).orderBy('group_id').execute();
  return rows.map((row) => row.group_id);
}
