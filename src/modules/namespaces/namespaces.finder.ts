// Reads of namespaces (personal ones and groups): the list, one by id or path, existence of a
// path, and the caller's access levels a page of them needs, batch-loaded.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { parseIdOrPath } from '../../core/params.ts';
import { fuzzyMatch, trigramPrefilter } from '../../core/search.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { Dialect } from '../../db/database.ts';
import type { DB, NamespaceRow } from '../../db/schema.ts';
import type { ListNamespacesQuery } from './namespaces.schemas.ts';

type NamespacesQuery = SelectQueryBuilder<DB, 'namespaces', NamespaceRow>;

const today = (now: Date) => now.toISOString().slice(0, 10);
/** Memberships `m` still in force. */
export const unexpired = (now: Date) => sql<SqlBool>`(m.expires_at is null or m.expires_at > ${today(now)})`;

/**
 * GET /namespaces: every namespace for administrators; for others their personal namespace and
 * the groups they are a direct member of (only those they own with `owned_only`).
 */
export function findNamespaces(db: Kysely<DB>, dialect: Dialect, actor: Actor, q: ListNamespacesQuery, now: Date): NamespacesQuery {
  let qb = db.selectFrom('namespaces').selectAll('namespaces');
  if (!actor.isAdmin) {
    const userId = actor.user.id;
    const level = q.owned_only ? sql`m.access_level = ${ACCESS.OWNER}` : sql`m.access_level >= ${ACCESS.GUEST}`;
    // One list of ids, driven from the user's own namespace and memberships (namespaces_owner,
    // members_user), so that neither dialect walks every namespace.
    qb = qb.where(
      sql<SqlBool>`namespaces.id in (
        select own.id from namespaces own where own.owner_id = ${userId} and own.type = 'User'
        union all
        select m.source_id from members m join namespaces g on g.id = m.source_id
         where m.user_id = ${userId} and m.source_type = 'Namespace' and g.type = 'Group'
           and ${level} and ${unexpired(now)})`,
    );
  }
  if (q.search !== undefined) {
    const match = fuzzyMatch(q.search, ['namespaces.path', 'namespaces.name']);
    if (match) qb = qb.where(match);
    // Administrators search every namespace: on SQLite its trigram index spares the scan.
    const indexed = actor.isAdmin && dialect === 'sqlite' ? trigramPrefilter(q.search, 'namespaces_search', 'namespaces.id') : null;
    if (indexed) qb = qb.where(indexed);
  }
  return qb;
}

/** A namespace by id or full path (any case). */
export async function findNamespace(db: Kysely<DB>, raw: string): Promise<NamespaceRow | undefined> {
  const ref = parseIdOrPath(raw);
  if (!ref || ('id' in ref && !Number.isSafeInteger(ref.id))) return undefined;
  let q = db.selectFrom('namespaces').selectAll();
  q = 'id' in ref ? q.where('id', '=', ref.id) : q.where(sql`lower(full_path)`, '=', ref.path.toLowerCase());
  return q.executeTakeFirst();
}

/** Whether a namespace with this path (any case) sits right under `parentId` (the top level when null). */
export async function pathExists(db: Kysely<DB>, path: string, parentId: number | null): Promise<boolean> {
  let q = db.selectFrom('namespaces').select('id').where(sql`lower(path)`, '=', path.toLowerCase());
  q = parentId === null ? q.where('parent_id', 'is', null) : q.where('parent_id', '=', parentId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Whether any namespace, anywhere, has this path or name (any case). */
export async function pathOrNameUsed(db: Kysely<DB>, candidate: string): Promise<boolean> {
  const lower = candidate.toLowerCase();
  const row = await db
    .selectFrom('namespaces')
    .select('id')
    .where((eb) => eb.or([eb(sql`lower(path)`, '=', lower), eb(sql`lower(name)`, '=', lower)]))
    .executeTakeFirst();
  return row !== undefined;
}

/** The user's highest unexpired membership of each group on the page or any of its ancestors. */
export async function loadCallerLevels(db: Kysely<DB>, userId: number, rows: readonly NamespaceRow[], now: Date): Promise<Map<number, number>> {
  const groups = rows.filter((r) => r.type === 'Group');
  if (groups.length === 0) return new Map();
  const related = [...new Set(groups.flatMap((g) => ancestorIds(g.traversal_path)))];
  const levels = await db
    .selectFrom('members as m')
    .select(['m.source_id', 'm.access_level'])
    .where('m.source_type', '=', 'Namespace')
    .where('m.user_id', '=', userId)
    .where('m.source_id', 'in', related)
    .where(unexpired(now))
    .execute();
  const byId = new Map(levels.map((r) => [r.source_id, r.access_level]));
  return new Map(groups.map((g) => [g.id, Math.max(ACCESS.NO_ACCESS, ...ancestorIds(g.traversal_path).map((id) => byId.get(id) ?? ACCESS.NO_ACCESS))]));
}
