// Pushes under way, counted in the database so that every node sharing it sees them (the
// platform's Gitlab::ReferenceCounter, which it keeps in Redis): a storage move first makes the
// repository read-only, then waits until no push to it holds a lease. A push takes its lease
// before git runs, then checks the repository is still writable: whichever of the two comes
// second sees the other, so no push writes to a repository while it is copied. The lease is
// renewed while the push runs and removed at its end; a node that dies leaves leases that expire
// within LEASE_MS and count no more. Writes the API or a background job makes to a repository
// (commits, branches, tags, merges, wiki pages, snippet files, imports) hold a lease the same way,
// through withRepositoryWrite, so that a move waits for them too and refuses those that come after.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BaseContext } from '../core/context.ts';
import { ownerTag } from '../core/processes.ts';
import { repositoryReadOnly } from './project-repository.ts';
import { RPC_TIMEOUT_MS } from '../git/smart-http.ts';

/** The repository a push writes: a project's, a project's or a group's wiki, or a snippet's. */
export interface PushedRepository {
  kind: 'project' | 'project_wiki' | 'group_wiki' | 'snippet';
  /** The project's, group's or snippet's id. */
  id: number;
  /**
   * The storage the writer found the repository on, when it knows it: a repository that has moved
   * since is refused too, as the writer would write the original a finished move left behind.
   */
  storage?: string;
}

/** How long a lease lasts unless renewed, and how often a running push renews it. */
export const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

const keyOf = (repository: PushedRepository) => `${repository.kind}:${repository.id}`;
const expiry = (ctx: BaseContext) => new Date(ctx.now().getTime() + LEASE_MS).toISOString();

export interface PushLease {
  /** Ends the lease (the push is over); never rejects. */
  release(): Promise<void>;
}

/**
 * Whether the repository may not be written now: read-only (a storage move holds it), or moved off
 * the storage the writer found it on; read afresh.
 */
async function unwritable(ctx: BaseContext, repository: PushedRepository): Promise<boolean> {
  const { db } = ctx;
  const moved = (storage: string) => repository.storage !== undefined && storage !== repository.storage;
  switch (repository.kind) {
    case 'project':
    case 'project_wiki': {
      const row = await db.selectFrom('projects').select(['repository_read_only', 'repository_storage']).where('id', '=', repository.id).executeTakeFirst();
      return row === undefined || row.repository_read_only || moved(row.repository_storage);
    }
    case 'snippet': {
      const row = await db.selectFrom('snippets').select(['repository_read_only', 'repository_storage']).where('id', '=', repository.id).executeTakeFirst();
      return row === undefined || row.repository_read_only || moved(row.repository_storage);
    }
    case 'group_wiki': {
      // A group without a wiki repository yet has nothing a move could hold.
      const row = await db.selectFrom('group_wiki_repositories').select(['read_only', 'repository_storage']).where('group_id', '=', repository.id).executeTakeFirst();
      return row !== undefined && (Boolean(row.read_only) || moved(row.repository_storage));
    }
  }
}

/**
 * Takes a lease for a push about to run git on the repository; null (and no lease) when the
 * repository has become read-only (or moved) meanwhile, and the push is to be refused. Called
 * outside a transaction: a lease the mover cannot see yet holds nothing.
 */
export async function beginPush(ctx: BaseContext, repository: PushedRepository): Promise<PushLease | null> {
  const { db } = ctx;
  if (db.isTransaction) throw new Error('a push lease must be visible to other connections at once: take it outside a transaction');
  const now = ctx.now().toISOString();
  // Leases of dead nodes go whenever a push begins: they count no more, and nothing else removes them.
  await db.deleteFrom('push_leases').where('expires_at', '<=', now).execute();
  const { id } = await db.insertInto('push_leases').values({ repository: keyOf(repository), node: ownerTag(), expires_at: expiry(ctx), created_at: now }).returning('id').executeTakeFirstOrThrow();
  const release = async () => {
    clearInterval(renewal);
    await db.deleteFrom('push_leases').where('id', '=', id).execute().catch(() => {});
  };
  const started = Date.now();
  const renewal = setInterval(() => {
    // Git is stopped after RPC_TIMEOUT_MS: a lease its push forgot to release lapses after that.
    if (Date.now() - started > RPC_TIMEOUT_MS) return clearInterval(renewal);
    void db.updateTable('push_leases').set({ expires_at: expiry(ctx) }).where('id', '=', id).execute().catch(() => {});
  }, RENEW_MS);
  renewal.unref();
  if (await unwritable(ctx, repository)) {
    await release();
    return null;
  }
  return { release };
}

/**
 * Runs a write the API or a background job makes to the repository (git, and whatever must happen
 * with it) under a lease, as a push runs: a storage move that has begun refuses it with `refusal`
 * (the API's 400 "temporarily read-only" by default), one that begins while it runs waits for it
 * to end. The lease is released however the write ends. Reads take none.
 */
export async function withRepositoryWrite<T>(ctx: BaseContext, repository: PushedRepository, write: () => Promise<T>, refusal: () => Error = repositoryReadOnly): Promise<T> {
  const lease = await beginPush(ctx, repository);
  if (lease === null) throw refusal();
  try {
    return await write();
  } finally {
    await lease.release();
  }
}

/** How many pushes to these repositories hold a lease that has not expired, on any node. */
export async function pushesUnderWay(ctx: BaseContext, repositories: readonly PushedRepository[]): Promise<number> {
  if (repositories.length === 0) return 0;
  const row = await ctx.db
    .selectFrom('push_leases')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('repository', 'in', repositories.map(keyOf))
    .where('expires_at', '>', ctx.now().toISOString())
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/**
 * Waits until no push to these repositories is under way on any node; the caller has made them
 * read-only first, so that no new one begins. Throws once `maxWaitMs` has passed.
 */
export async function waitForPushes(ctx: BaseContext, repositories: readonly PushedRepository[], maxWaitMs: number): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  while ((await pushesUnderWay(ctx, repositories)) > 0) {
    if (Date.now() > deadline) throw new Error('pushes to the repository were still under way when the move had waited for them long enough');
    await sleep(50);
  }
}
