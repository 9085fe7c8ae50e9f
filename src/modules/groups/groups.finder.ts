// Reads of groups. findGroups returns an unexecuted, unordered builder; the route adds the order
// through pagination so that every page is cut in the database.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ACCESS, visibleLevels } from '../../core/access/levels.ts';
import { inSubtree } from '../../core/access/subtree.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { fuzzyMatch, startsWithText } from '../../core/search.ts';
import type { DB, NamespaceRow } from '../../db/schema.ts';
import { hasCustomAttribute } from '../../domain/custom-attribute-tables.ts';
import type { GroupStatistics, ListGroupsQuery } from './groups.schemas.ts';

type GroupsQuery = SelectQueryBuilder<DB, 'namespaces', NamespaceRow>;

const today = (now: Date) => now.toISOString().slice(0, 10);

/** Unexpired direct memberships of the user at Guest or above, on the group aliased `mg`. */
function membershipOf(userId: number, now: Date, minLevel: number = ACCESS.GUEST, exact = false) {
  return sql<SqlBool>`m.source_type = 'Namespace' and m.user_id = ${userId}
    and m.access_level ${sql.raw(exact ? '=' : '>=')} ${minLevel}
    and (m.expires_at is null or m.expires_at > ${today(now)})`;
}

/**
 * Groups related to the user's memberships: the groups they are a member of with their ancestors
 * and descendants, and the groups above every project they reach.
 */
function membershipHierarchy(userId: number, now: Date) {
  return sql<SqlBool>`(exists (
      select 1 from members m join namespaces mg on mg.id = m.source_id
       where ${membershipOf(userId, now)}
         and (${inSubtree('namespaces.traversal_path', sql.ref('mg.traversal_path'))} or ${inSubtree('mg.traversal_path', sql.ref('namespaces.traversal_path'))}))
    or exists (
      select 1 from project_authorizations pa
        join projects p on p.id = pa.project_id
        join namespaces pn on pn.id = p.namespace_id
       where pa.user_id = ${userId} and ${inSubtree('pn.traversal_path', sql.ref('namespaces.traversal_path'))}))`;
}

/** Groups the user is a direct member of at `minLevel` or above (exactly Owner for `owned`), and their descendants. */
function membershipFrom(userId: number, now: Date, minLevel: number, withDescendants: boolean, exact = false) {
  const related = withDescendants ? inSubtree('namespaces.traversal_path', sql.ref('mg.traversal_path')) : sql`mg.id = namespaces.id`;
  return sql<SqlBool>`exists (
    select 1 from members m join namespaces mg on mg.id = m.source_id
     where ${membershipOf(userId, now, minLevel, exact)} and ${related})`;
}

export interface GroupScope {
  /** Direct subgroups of this group, or (with `descendants`) every group below it. */
  parent?: NamespaceRow;
  descendants?: boolean;
}

/**
 * GET /groups and the subgroup lists. Owned and min_access_level narrow to the caller's own
 * memberships; otherwise administrators see every group (unless all_available=false), anonymous
 * callers the public ones, and others the groups around their memberships, plus with
 * all_available=true every group their visibility level reaches.
 */
export function findGroups(db: Kysely<DB>, actor: Actor | null, q: ListGroupsQuery, now: Date, scope: GroupScope = {}): GroupsQuery {
  let qb = db.selectFrom('namespaces').selectAll('namespaces').where('namespaces.type', '=', 'Group');
  const admin = actor?.isAdmin ?? false;
  const allAvailable = q.all_available ?? admin;
  if (q.owned) {
    qb = actor ? qb.where(membershipFrom(actor.user.id, now, ACCESS.OWNER, false, true)) : qb.where(sql<SqlBool>`1 = 0`);
  } else if (q.min_access_level !== undefined) {
    qb = actor ? qb.where(membershipFrom(actor.user.id, now, q.min_access_level, true)) : qb.where(sql<SqlBool>`1 = 0`);
  } else if (!(admin && allAvailable)) {
    const levels = visibleLevels(actor ? { isAdmin: admin, external: actor.user.external } : null);
    const byLevel = sql<SqlBool>`namespaces.visibility_level in (${sql.join(levels)})`;
    if (!actor) qb = qb.where(byLevel);
    else if (allAvailable) qb = qb.where((eb) => eb.or([membershipHierarchy(actor.user.id, now), byLevel]));
    else qb = qb.where(membershipHierarchy(actor.user.id, now));
  }
  if (q.top_level_only) qb = qb.where('namespaces.parent_id', 'is', null);
  else if (scope.parent && scope.descendants) {
    qb = qb.where(inSubtree('namespaces.traversal_path', scope.parent.traversal_path)).where('namespaces.id', '!=', scope.parent.id);
  } else if (scope.parent) qb = qb.where('namespaces.parent_id', '=', scope.parent.id);
  if (q.search !== undefined) {
    const match = fuzzyMatch(q.search, ['namespaces.full_path', 'namespaces.full_name']);
    if (match) qb = qb.where(match);
  }
  if (q.skip_groups?.length) qb = qb.where('namespaces.id', 'not in', q.skip_groups);
  if (admin) for (const [key, value] of Object.entries(q.custom_attributes ?? {})) qb = qb.where(hasCustomAttribute('group', 'namespaces.id', key, value));
  return qb;
}

/**
 * order_by=similarity with a search: the closest paths and names first (an exact path, an exact
 * name, a path or name starting with the query, then the rest), deeper groups before their
 * parents, newest first.
 */
export function similarityOrder(qb: GroupsQuery, search: string): GroupsQuery {
  const term = search.trim().toLowerCase();
  const score = sql<number>`(case when lower(namespaces.path) = ${term} then 10 when ${startsWithText(sql`lower(namespaces.path)`, term)} then 5 else 0 end)
    + (case when lower(namespaces.name) = ${term} then 7 when ${startsWithText(sql`lower(namespaces.name)`, term)} then 3 else 0 end)`;
  return qb
    .orderBy(score, 'desc')
    .orderBy(sql`case when namespaces.parent_id is null then 1 else 0 end`)
    .orderBy('namespaces.parent_id', 'desc')
    .orderBy('namespaces.id', 'desc');
}

/** Storage of the projects directly in each group, summed, in one query. */
export async function loadGroupStatistics(db: Kysely<DB>, groupIds: number[]): Promise<Map<number, GroupStatistics>> {
  const map = new Map<number, GroupStatistics>();
  if (groupIds.length === 0) return map;
  const sum = (column: string) => sql<number>`coalesce(sum(${sql.ref(`ps.${column}`)}), 0)`;
  const rows = await db
    .selectFrom('projects as p')
    .innerJoin('project_statistics as ps', 'ps.project_id', 'p.id')
    .select([
      'p.namespace_id',
      sum('storage_size').as('storage_size'),
      sum('repository_size').as('repository_size'),
      sum('wiki_size').as('wiki_size'),
      sum('lfs_objects_size').as('lfs_objects_size'),
      sum('build_artifacts_size').as('job_artifacts_size'),
      sum('pipeline_artifacts_size').as('pipeline_artifacts_size'),
      sum('packages_size').as('packages_size'),
      sum('snippets_size').as('snippets_size'),
      sum('uploads_size').as('uploads_size'),
    ])
    .where('p.namespace_id', 'in', groupIds)
    .groupBy('p.namespace_id')
    .execute();
  for (const r of rows) {
    const { namespace_id, ...sizes } = r;
    map.set(namespace_id, Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, Number(v)])) as unknown as GroupStatistics);
  }
  return map;
}
