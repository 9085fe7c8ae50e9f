// Reads of namespaces (personal ones and groups): the list, one by id or path, existence of a
// path, and the counts and access levels a page of them needs, batch-loaded.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { inSubtree } from '../../core/access/subtree.ts';
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
  /** Distinct active members of the group and its subgroups (only for the groups asked for). */
  membersWithDescendants: ReadonlyMap<number, number>;
  /** Distinct active people who are members of the group, its subgroups or their projects. */
  billable: ReadonlyMap<number, number>;
}

/**
 * The member counts a page of namespaces shows, in at most two queries: billable members for every
 * group on it (every reader sees them), members with descendants only for the groups in
 * `withDescendants` (those the caller administers: no one else sees that count).
 */
export async function loadNamespaceCounts(db: Kysely<DB>, rows: readonly NamespaceRow[], withDescendants: ReadonlySet<number>, now: Date): Promise<NamespaceCounts> {
  const ids = rows.filter((r) => r.type === 'Group').map((g) => g.id);
  const administered = ids.filter((id) => withDescendants.has(id));
  const [members, billable] = await Promise.all([
    administered.length > 0 ? membersWithDescendants(db, administered, now) : new Map<number, number>(),
    ids.length > 0 ? billableMembers(db, ids, now) : new Map<number, number>(),
  ]);
  return { membersWithDescendants: members, billable };
}

// The joins below are CROSS JOINs with their conditions in WHERE: SQLite keeps that order (the
// page's groups, each one's subtree through the traversal_path index, then its memberships), where
// without statistics it would start from every membership; PostgreSQL plans them as inner joins.
const active = sql<SqlBool>`u.state = 'active' and u.user_type not in (${sql.join(BOT_TYPES)})`;
/** `d` runs over the group `g` and every group below it. */
const subtreeOfG = inSubtree('d.traversal_path', sql.ref('g.traversal_path'));
const byGroup = (rows: readonly { id: number; n: number }[]) => new Map(rows.map((r) => [Number(r.id), Number(r.n)]));

async function membersWithDescendants(db: Kysely<DB>, groupIds: readonly number[], now: Date): Promise<Map<number, number>> {
  const { rows } = await sql<{ id: number; n: number }>`
    select g.id as id, count(distinct m.user_id) as n
      from namespaces g cross join namespaces d cross join members m cross join users u
     where g.id in (${sql.join(groupIds)}) and ${subtreeOfG}
       and m.source_type = 'Namespace' and m.source_id = d.id and ${unexpired(now)}
       and u.id = m.user_id and ${active}
     group by g.id`.execute(db);
  return byGroup(rows);
}

async function billableMembers(db: Kysely<DB>, groupIds: readonly number[], now: Date): Promise<Map<number, number>> {
  const ids = sql.join(groupIds);
  const { rows } = await sql<{ id: number; n: number }>`
    select x.id as id, count(distinct x.user_id) as n
      from (
        select g.id as id, m.user_id as user_id
          from namespaces g cross join namespaces d cross join members m cross join users u
         where g.id in (${ids}) and ${subtreeOfG}
           and m.source_type = 'Namespace' and m.source_id = d.id and ${unexpired(now)}
           and u.id = m.user_id and ${active}
        union all
        select g.id, m.user_id
          from namespaces g cross join namespaces d cross join projects p cross join members m cross join users u
         where g.id in (${ids}) and ${subtreeOfG} and p.namespace_id = d.id
           and m.source_type = 'Project' and m.source_id = p.id and ${unexpired(now)}
           and u.id = m.user_id and ${active}
      ) x
     group by x.id`.execute(db);
  return byGroup(rows);
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
