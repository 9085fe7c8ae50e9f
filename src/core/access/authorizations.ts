// Effective access: a user's level on a project (project_authorizations, recomputed whenever a
// membership or the hierarchy changes) and on a group (its own or an ancestor's membership).
import { type Kysely, type NotNull, PostgresAdapter, sql } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { DB } from '../../db/schema.ts';
import { ACCESS } from './levels.ts';
import { inSubtree } from './subtree.ts';

/** Group ids on a traversal path, from the top: '/1/5/9/' → [1, 5, 9]. */
export function ancestorIds(traversalPath: string): number[] {
  return traversalPath.split('/').filter(Boolean).map(Number);
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/** The class of PostgreSQL advisory locks that order refreshes of one user's authorizations. */
const AUTHORIZATIONS_LOCK = 7_270_002;

/**
 * On PostgreSQL, takes a lock per user, in ascending order, held until the transaction commits,
 * before a writer changes those users' authorization rows. Two writers that change overlapping
 * users' rows (two projects created at once in one group; a project deleted while another is
 * created) would otherwise lock them in different orders and deadlock. SQLite has one writer.
 */
export async function lockAuthorizationsOf(db: Kysely<DB>, userIds: readonly number[]): Promise<void> {
  if (userIds.length === 0 || !(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const sorted = sql.join([...new Set(userIds)].sort((a, b) => a - b).map((id) => sql`(${id}::bigint)`));
  await sql`select pg_advisory_xact_lock(${AUTHORIZATIONS_LOCK}, cast(u.id as integer)) from (values ${sorted}) as u(id) order by u.id`.execute(db);
}

/** Recomputes the project authorizations of these users from their memberships. */
export async function refreshAuthorizations(db: Kysely<DB>, userIds: readonly number[], now: Date): Promise<void> {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  const day = today(now);
  await lockAuthorizationsOf(db, ids);
  await db.deleteFrom('project_authorizations').where('user_id', 'in', ids).execute();
  const list = sql.join(ids.map((id) => sql`${id}`));
  await sql`
    insert into project_authorizations (user_id, project_id, access_level, visibility_level)
    select user_id, project_id, max(access_level), max(visibility_level) from (
      select m.user_id as user_id, p.id as project_id, m.access_level as access_level, p.visibility_level as visibility_level
        from members m
        join projects p on p.id = m.source_id
       where m.source_type = 'Project' and m.user_id in (${list})
         and m.access_level >= ${ACCESS.GUEST} and (m.expires_at is null or m.expires_at > ${day})
      union all
      select m.user_id, p.id, m.access_level, p.visibility_level
        from members m
        join namespaces g on g.id = m.source_id
        join namespaces n on ${inSubtree('n.traversal_path', sql.ref('g.traversal_path'))}
        join projects p on p.namespace_id = n.id
       where m.source_type = 'Namespace' and m.user_id in (${list})
         and m.access_level >= ${ACCESS.GUEST} and (m.expires_at is null or m.expires_at > ${day})
      union all
      select n.owner_id, p.id, ${ACCESS.OWNER}, p.visibility_level
        from namespaces n
        join projects p on p.namespace_id = n.id
       where n.type = 'User' and n.owner_id in (${list})
    ) as reachable
    group by user_id, project_id`.execute(db);
}

/** Users whose authorizations depend on this namespace: members of it or its ancestors (invitations wait for one), and its owner. */
export async function usersAboveNamespace(db: Kysely<DB>, namespace: { traversal_path: string; owner_id: number | null }): Promise<number[]> {
  const groups = ancestorIds(namespace.traversal_path);
  const rows = groups.length
    ? await db.selectFrom('members').select('user_id').where('source_type', '=', 'Namespace').where('source_id', 'in', groups).where('user_id', 'is not', null).$narrowType<{ user_id: NotNull }>().execute()
    : [];
  const ids = rows.map((r) => r.user_id);
  if (namespace.owner_id !== null) ids.push(namespace.owner_id);
  return ids;
}

/** Users whose authorizations depend on a namespace subtree: members of it, its descendants or its ancestors. */
export async function usersAroundNamespace(db: Kysely<DB>, namespace: { traversal_path: string; owner_id: number | null }): Promise<number[]> {
  const above = await usersAboveNamespace(db, namespace);
  const below = await db
    .selectFrom('members as m')
    .select('m.user_id')
    .where('m.user_id', 'is not', null)
    .$narrowType<{ user_id: NotNull }>()
    .where((eb) =>
      eb.or([
        eb.and([
          eb('m.source_type', '=', 'Namespace'),
          eb('m.source_id', 'in', eb.selectFrom('namespaces').select('id').where(inSubtree('traversal_path', namespace.traversal_path))),
        ]),
        eb.and([
          eb('m.source_type', '=', 'Project'),
          eb(
            'm.source_id',
            'in',
            eb
              .selectFrom('projects as p')
              .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
              .select('p.id')
              .where(inSubtree('n.traversal_path', namespace.traversal_path)),
          ),
        ]),
      ]),
    )
    .execute();
  return [...above, ...below.map((r) => r.user_id)];
}

// Prepared: every project route asks it.
const accessLevelRows = prepared((db, userId: number, projectId: number) =>
  db.selectFrom('project_authorizations').select('access_level').where('user_id', '=', userId).where('project_id', '=', projectId),
);

export async function projectAccessLevel(db: Kysely<DB>, userId: number, projectId: number): Promise<number> {
  const [row] = await accessLevelRows(db, userId, projectId);
  return row?.access_level ?? ACCESS.NO_ACCESS;
}

/** The highest unexpired membership of the user in the group or any of its ancestors. */
export async function groupAccessLevel(db: Kysely<DB>, userId: number, traversalPath: string, now: Date): Promise<number> {
  const groups = ancestorIds(traversalPath);
  if (groups.length === 0) return ACCESS.NO_ACCESS;
  const row = await db
    .selectFrom('members')
    .select((eb) => eb.fn.max('access_level').as('level'))
    .where('source_type', '=', 'Namespace')
    .where('user_id', '=', userId)
    .where('source_id', 'in', groups)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today(now))]))
    .executeTakeFirst();
  return Number(row?.level ?? ACCESS.NO_ACCESS);
}

/** Whether the user reaches any project inside the group's subtree (which makes a private group visible). */
export async function reachesProjectUnder(db: Kysely<DB>, userId: number, traversalPath: string): Promise<boolean> {
  const row = await db
    .selectFrom('project_authorizations as pa')
    .innerJoin('projects as p', 'p.id', 'pa.project_id')
    .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
    .select('pa.project_id')
    .where('pa.user_id', '=', userId)
    .where(inSubtree('n.traversal_path', traversalPath))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
