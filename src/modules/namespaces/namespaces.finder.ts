// Reads of namespaces (personal ones and groups): the list, one by id or path, existence of a
// path, and the counts and access levels a page of them needs, batch-loaded.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { parseIdOrPath } from '../../core/params.ts';
import { fuzzyMatch } from '../../core/search.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { DB, NamespaceRow } from '../../db/schema.ts';
import type { ListNamespacesQuery } from './namespaces.schemas.ts';

type NamespacesQuery = SelectQueryBuilder<DB, 'namespaces', NamespaceRow>;

const today = (now: Date) => now.toISOString().slice(0, 10);
const unexpired = (now: Date) => sql<SqlBool>`(m.expires_at is null or m.expires_at > ${today(now)})`;

/** Bots that access tokens create are no people to bill. */
const BOT_TYPES = ['project_bot', 'group_bot'];

/**
 * GET /namespaces: every namespace for administrators; for others their personal namespace and
 * the groups they are a direct member of (only those they own with `owned_only`).
 */
export function findNamespaces(db: Kysely<DB>, actor: Actor, q: ListNamespacesQuery, now: Date): NamespacesQuery {
  let qb = db.selectFrom('namespaces').selectAll('namespaces');
  if (!actor.isAdmin) {
    const userId = actor.user.id;
    const level = q.owned_only ? sql`m.access_level = ${ACCESS.OWNER}` : sql`m.access_level >= ${ACCESS.GUEST}`;
    qb = qb.where(
      sql<SqlBool>`((namespaces.type = 'User' and namespaces.owner_id = ${userId}) or (namespaces.type = 'Group' and exists (
        select 1 from members m where m.source_type = 'Namespace' and m.source_id = namespaces.id and m.user_id = ${userId}
           and ${level} and ${unexpired(now)})))`,
    );
  }
  if (q.search !== undefined) {
    const match = fuzzyMatch(q.search, ['namespaces.path', 'namespaces.name']);
    if (match) qb = qb.where(match);
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

export interface NamespaceCounts {
  /** Distinct active members of the group and its subgroups. */
  membersWithDescendants: ReadonlyMap<number, number>;
  /** Distinct active people who are members of the group, its subgroups or their projects. */
  billable: ReadonlyMap<number, number>;
  /** The caller's highest membership of each group or its ancestors. */
  callerLevels: ReadonlyMap<number, number>;
}

/** Everything a page of namespaces needs beyond its rows, in a fixed number of queries. */
export async function loadNamespaceCounts(db: Kysely<DB>, actor: Actor | null, rows: readonly NamespaceRow[], now: Date): Promise<NamespaceCounts> {
  const groups = rows.filter((r) => r.type === 'Group');
  const ids = groups.map((g) => g.id);
  if (ids.length === 0) return { membersWithDescendants: new Map(), billable: new Map(), callerLevels: new Map() };
  const active = sql<SqlBool>`u.state = 'active' and u.user_type not in (${sql.join(BOT_TYPES)})`;
  const [members, billable, levels] = await Promise.all([
    sql<{ id: number; n: number }>`
      select g.id as id, count(distinct m.user_id) as n
        from namespaces g
        join namespaces d on d.traversal_path like g.traversal_path || '%'
        join members m on m.source_type = 'Namespace' and m.source_id = d.id
        join users u on u.id = m.user_id
       where g.id in (${sql.join(ids)}) and ${active} and ${unexpired(now)}
       group by g.id`.execute(db),
    sql<{ id: number; n: number }>`
      select g.id as id, count(distinct x.user_id) as n
        from namespaces g
        join (
          select d.traversal_path as traversal_path, m.user_id as user_id, m.expires_at as expires_at
            from members m join namespaces d on m.source_type = 'Namespace' and d.id = m.source_id
          union all
          select n.traversal_path, m.user_id, m.expires_at
            from members m
            join projects p on m.source_type = 'Project' and p.id = m.source_id
            join namespaces n on n.id = p.namespace_id
        ) x on x.traversal_path like g.traversal_path || '%'
        join users u on u.id = x.user_id
       where g.id in (${sql.join(ids)}) and ${active} and (x.expires_at is null or x.expires_at > ${today(now)})
       group by g.id`.execute(db),
    actor ? callerLevels(db, actor.user.id, groups, now) : new Map<number, number>(),
  ]);
  return {
    membersWithDescendants: new Map(members.rows.map((r) => [Number(r.id), Number(r.n)])),
    billable: new Map(billable.rows.map((r) => [Number(r.id), Number(r.n)])),
    callerLevels: levels,
  };
}

/** The user's highest unexpired membership of each group or any of its ancestors. */
async function callerLevels(db: Kysely<DB>, userId: number, groups: readonly NamespaceRow[], now: Date): Promise<Map<number, number>> {
  const related = [...new Set(groups.flatMap((g) => ancestorIds(g.traversal_path)))];
  const rows = await db
    .selectFrom('members as m')
    .select(['m.source_id', 'm.access_level'])
    .where('m.source_type', '=', 'Namespace')
    .where('m.user_id', '=', userId)
    .where('m.source_id', 'in', related)
    .where(unexpired(now))
    .execute();
  const byGroup = new Map(rows.map((r) => [r.source_id, r.access_level]));
  return new Map(groups.map((g) => [g.id, Math.max(ACCESS.NO_ACCESS, ...ancestorIds(g.traversal_path).map((id) => byGroup.get(id) ?? ACCESS.NO_ACCESS))]));
}
