// Reads of memberships. A source is a project or a group; lists return unexecuted builders that
// pagination cuts in the database, ordered by membership id as the platform's pagination does.
import { type Expression, type Kysely, type NotNull, type SqlBool, sql } from 'kysely';
import { ACCESS } from '../../core/access/levels.ts';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { containsText } from '../../core/search.ts';
import type { DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';

export type SourceType = 'Project' | 'Namespace';

/** A project or a group, with what its memberships depend on. */
export interface MemberSource {
  type: SourceType;
  id: number;
  name: string;
  /** Groups whose members are inherited: the project's group and its ancestors, or the group's ancestors. */
  inheritedFrom: number[];
  /** The owner of the personal namespace a project lives in; their membership is not managed here. */
  personalOwnerId: number | null;
  /** A group's traversal path ('/1/5/'), which its subgroups and their projects share as a prefix. */
  traversalPath: string | null;
}

export function projectSource(project: ProjectRow, namespace: NamespaceRow): MemberSource {
  const inGroup = namespace.type === 'Group';
  return {
    type: 'Project',
    id: project.id,
    name: project.name,
    inheritedFrom: inGroup ? ancestorIds(namespace.traversal_path) : [],
    personalOwnerId: inGroup ? null : namespace.owner_id,
    traversalPath: null,
  };
}

export function groupSource(group: NamespaceRow): MemberSource {
  return {
    type: 'Namespace',
    id: group.id,
    name: group.name,
    inheritedFrom: ancestorIds(group.traversal_path).filter((id) => id !== group.id),
    personalOwnerId: null,
    traversalPath: group.traversal_path,
  };
}

/** The project or group a membership row belongs to; null when it is gone. */
export async function findMemberSource(db: Kysely<DB>, type: string, id: number): Promise<MemberSource | null> {
  if (type === 'Project') {
    const project = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
    if (!project) return null;
    const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
    return projectSource(project, namespace);
  }
  const group = await db.selectFrom('namespaces').selectAll().where('id', '=', id).executeTakeFirst();
  return group ? groupSource(group) : null;
}

/** A membership with the user fields the entity shows. */
export interface MemberView {
  member_id: number;
  source_type: string;
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_at: string;
  username: string;
  name: string;
  state: string;
  user_type: string;
}

export interface MemberFilters {
  query?: string;
  user_ids?: number[];
}

const MEMBER_COLUMNS = ['m.id as member_id', 'm.source_type', 'm.source_id', 'm.user_id', 'm.access_level', 'm.expires_at', 'm.created_at'] as const;
const USER_COLUMNS = ['u.username', 'u.name', 'u.state', 'u.user_type'] as const;

/** The query as the platform's user search reads it: a leading `@` dropped, spaces squeezed, lower case. */
function normalizedQuery(query: string): string {
  return query.replace(/^@/, '').trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Name or username containing every word (of any length), or the exact public email (a private one is not revealed). */
function searchCondition(term: string): Expression<SqlBool> {
  const words = term.split(' ');
  const containsAll = (column: string) => sql.join(words.map((w) => containsText(sql`lower(${sql.ref(column)})`, w)), sql` and `);
  return sql<SqlBool>`((${containsAll('u.name')}) or (${containsAll('u.username')}) or lower(u.public_email) = ${term})`;
}

/** Exact matches first (name, then username, then public email), then by name, as the user search orders. */
function searchRank(term: string) {
  return sql<number>`case when u.name = ${term} then 0 when u.username = ${term} then 1 when lower(u.public_email) = ${term} then 2 else 3 end`;
}

/** Direct members of a source. Joining the user leaves out invitations nobody has accepted. */
export function findDirectMembers(db: Kysely<DB>, source: MemberSource, filters: MemberFilters = {}) {
  let qb = db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select([...MEMBER_COLUMNS, ...USER_COLUMNS])
    .$narrowType<{ user_id: NotNull }>()
    .where('m.source_type', '=', source.type)
    .where('m.source_id', '=', source.id);
  if (filters.user_ids?.length) qb = qb.where('m.user_id', 'in', filters.user_ids);
  const term = filters.query === undefined ? '' : normalizedQuery(filters.query);
  if (term === '') return qb.orderBy('m.id');
  return qb.where(() => searchCondition(term)).orderBy(searchRank(term)).orderBy('u.name').orderBy('m.id');
}

/**
 * Direct and inherited members: one row per user, the highest level winning; among equals a
 * project's own membership, then the one that never expires or expires last, then the oldest.
 * Minimal access in a group gives no access to its projects, so projects leave it out.
 */
export function findAllMembers(db: Kysely<DB>, source: MemberSource, filters: MemberFilters = {}) {
  const groups = source.inheritedFrom;
  const ranked = db
    .selectFrom('members as m')
    .select([
      ...MEMBER_COLUMNS,
      sql<number>`row_number() over (
        partition by m.user_id
        order by m.access_level desc,
                 case when m.source_type = 'Project' then 0 else 1 end,
                 case when m.expires_at is null then 0 else 1 end,
                 m.expires_at desc,
                 m.created_at,
                 m.id)`.as('position'),
    ])
    .where((eb) => {
      const own = eb.and([eb('m.source_type', '=', source.type), eb('m.source_id', '=', source.id)]);
      if (groups.length === 0) return own;
      const inherited = [eb('m.source_type', '=', 'Namespace'), eb('m.source_id', 'in', groups)];
      if (source.type === 'Project') inherited.push(eb('m.access_level', '>', ACCESS.MINIMAL_ACCESS));
      return eb.or([own, eb.and(inherited)]);
    });
  let qb = db
    .selectFrom(ranked.as('m'))
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.member_id', 'm.source_type', 'm.source_id', 'm.user_id', 'm.access_level', 'm.expires_at', 'm.created_at', ...USER_COLUMNS])
    .$narrowType<{ user_id: NotNull }>()
    .where('m.position', '=', 1);
  if (filters.user_ids?.length) qb = qb.where('m.user_id', 'in', filters.user_ids);
  const term = filters.query === undefined ? '' : normalizedQuery(filters.query);
  if (term === '') return qb.orderBy('m.member_id');
  return qb.where(() => searchCondition(term)).orderBy(searchRank(term)).orderBy('u.name').orderBy('m.member_id');
}

export async function findDirectMember(db: Kysely<DB>, source: MemberSource, userId: number): Promise<MemberView | undefined> {
  return findDirectMembers(db, source, { user_ids: [userId] }).executeTakeFirst();
}

export async function findInheritedOrDirectMember(db: Kysely<DB>, source: MemberSource, userId: number): Promise<MemberView | undefined> {
  return findAllMembers(db, source, { user_ids: [userId] }).executeTakeFirst();
}

/** The user's highest membership in these groups, with the group's name (for the inherited-level rule). */
export async function highestGroupMembership(db: Kysely<DB>, groupIds: number[], userId: number) {
  if (groupIds.length === 0) return undefined;
  return db
    .selectFrom('members as m')
    .innerJoin('namespaces as g', 'g.id', 'm.source_id')
    .select(['m.access_level', 'g.name as group_name'])
    .where('m.source_type', '=', 'Namespace')
    .where('m.source_id', 'in', groupIds)
    .where('m.user_id', '=', userId)
    .orderBy('m.access_level', 'desc')
    .orderBy('m.id')
    .executeTakeFirst();
}

/** Owners of the group and its ancestors, other than the given membership, by user state. */
export async function otherOwners(db: Kysely<DB>, groupIds: number[], exceptMemberId: number): Promise<{ active: number; blocked: number }> {
  const rows = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['u.state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('m.source_type', '=', 'Namespace')
    .where('m.source_id', 'in', groupIds)
    .where('m.access_level', '=', ACCESS.OWNER)
    .where('m.id', '!=', exceptMemberId)
    .groupBy('u.state')
    .execute();
  const count = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
  return { active: count('active'), blocked: count('blocked') };
}
