// Reads of projects. The list finders return unexecuted, unordered builders over `projects` (the
// route orders and paginates them in the database); loadProjectView batch-loads what the
// presenter needs for a page of rows.
import { type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { ACCESS, VISIBILITY } from '../../core/access/levels.ts';
import { SET_TEST_OFFSET, projectVisibleTo, projectsVisibleToParts } from '../../core/access/visibility.ts';
import { type Countable, pageOf } from '../../core/pagination.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { escapeLike, fuzzyMatch, searchTerm, startsWithText } from '../../core/search.ts';
import type { Config } from '../../config.ts';
import type { DB, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { secretBox } from '../../core/secret-box.ts';
import { loadProjectSettings } from '../../domain/settings/project-settings.ts';
import { hasCustomAttribute } from '../../domain/custom-attribute-tables.ts';
import { projectFeatureOpenTo } from '../../domain/issue-visibility.ts';
import { PROJECT_NAMESPACE_COLUMNS, type ProjectForm, type ProjectView } from './projects.presenter.ts';
import { type ListProjectsQuery, type ProjectStatistics, STATISTICS_ORDERS } from './projects.schemas.ts';

export type ProjectsQuery = SelectQueryBuilder<DB, 'projects', ProjectRow>;

export interface ViewDeps {
  db: Kysely<DB>;
  config: Pick<Config, 'externalUrl' | 'sshUrlPrefix' | 'dataDir'>;
  now: () => Date;
}

export interface ViewOptions {
  statistics?: boolean;
  license?: boolean;
  /**
   * The form the rows are presented in, when known: the simple form needs neither the owners of
   * personal namespaces nor the viewer's memberships, the full form no memberships.
   */
  form?: ProjectForm;
}

const today = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Everything the presenter needs for these projects as seen by `actor`, in a fixed number of
 * queries whatever the number of rows. The groups module calls it for a group's `projects`.
 */
export async function loadProjectView(deps: ViewDeps, actor: Actor | null, rows: readonly ProjectRow[], options: ViewOptions = {}): Promise<ProjectView> {
  const { db } = deps;
  const ids = [...new Set(rows.map((r) => r.id))];
  const namespaceIds = [...new Set(rows.map((r) => r.namespace_id))];
  const userId = actor?.user.id;
  const none = ids.length === 0;
  const withOwners = options.form !== 'simple';
  const withSettings = options.form !== 'simple';
  const withMemberships = options.form === undefined || options.form === 'with_access';

  const [namespaces, topics, access, statistics, settings] = await Promise.all([
    none ? [] : db.selectFrom('namespaces').select(PROJECT_NAMESPACE_COLUMNS).where('id', 'in', namespaceIds).execute(),
    none ? [] : db.selectFrom('project_topics').select(['project_id', 'name']).where('project_id', 'in', ids).execute(),
    none || userId === undefined
      ? []
      : db.selectFrom('project_authorizations').select(['project_id', 'access_level']).where('user_id', '=', userId).where('project_id', 'in', ids).execute(),
    none || !options.statistics ? [] : db.selectFrom('project_statistics').selectAll().where('project_id', 'in', ids).execute(),
    withSettings ? loadProjectSettings(db, rows) : undefined,
  ]);

  const namespaceMap = new Map(namespaces.map((n) => [n.id, n]));
  const ownerIds = withOwners ? [...new Set(namespaces.filter((n) => n.type === 'User' && n.owner_id !== null).map((n) => n.owner_id as number))] : [];
  const groups = namespaces.filter((n) => n.type === 'Group');
  const groupAncestors = [...new Set(groups.flatMap((g) => ancestorIds(g.traversal_path)))];
  const [owners, memberships] = await Promise.all([
    ownerIds.length === 0 ? [] : db.selectFrom('users').selectAll().where('id', 'in', ownerIds).execute(),
    // The actor's unexpired direct memberships of these projects and of their groups (or above).
    none || userId === undefined || !withMemberships
      ? []
      : db
          .selectFrom('members')
          .select(['source_type', 'source_id', 'access_level'])
          .where('user_id', '=', userId)
          .where((eb) =>
            eb.or([
              eb.and([eb('source_type', '=', 'Project'), eb('source_id', 'in', ids)]),
              ...(groupAncestors.length === 0 ? [] : [eb.and([eb('source_type', '=', 'Namespace'), eb('source_id', 'in', groupAncestors)])]),
            ]),
          )
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today(deps.now()))]))
          .execute(),
  ]);
  const projectMembers = memberships.filter((m) => m.source_type === 'Project');
  const groupRows = memberships.filter((m) => m.source_type === 'Namespace');

  const topicMap = new Map<number, string[]>();
  for (const t of topics) topicMap.set(t.project_id, [...(topicMap.get(t.project_id) ?? []), t.name]);
  for (const list of topicMap.values()) list.sort();

  const levelByGroup = new Map(groupRows.map((m) => [m.source_id, m.access_level]));
  const groupMembers = new Map<number, number>();
  for (const g of groups) {
    const levels = ancestorIds(g.traversal_path).map((id) => levelByGroup.get(id)).filter((l): l is number => l !== undefined);
    if (levels.length > 0) groupMembers.set(g.id, Math.max(...levels));
  }

  const view: ProjectView = {
    baseUrl: deps.config.externalUrl,
    sshUrlPrefix: deps.config.sshUrlPrefix,
    viewer: actor,
    namespaces: namespaceMap,
    owners: new Map<number, UserRow>(owners.map((u) => [u.id, u])),
    topics: topicMap,
    access: new Map(access.map((a) => [a.project_id, a.access_level])),
    projectMembers: new Map(projectMembers.map((m) => [m.source_id, m.access_level])),
    groupMembers,
    license: options.license,
    settings,
    openSecret: secretBox(deps.config.dataDir).open,
  };
  if (options.statistics) {
    view.statistics = new Map(
      statistics.map((s): [number, ProjectStatistics] => [
        s.project_id,
        {
          commit_count: Number(s.commit_count),
          storage_size: Number(s.storage_size),
          repository_size: Number(s.repository_size),
          wiki_size: Number(s.wiki_size),
          lfs_objects_size: Number(s.lfs_objects_size),
          job_artifacts_size: Number(s.build_artifacts_size),
          pipeline_artifacts_size: Number(s.pipeline_artifacts_size),
          packages_size: Number(s.packages_size),
          snippets_size: Number(s.snippets_size),
          uploads_size: Number(s.uploads_size),
        },
      ]),
    );
  }
  return view;
}

// ---- Lists ----------------------------------------------------------------------------------------

/** Every project. Every list starts here. */
export function allProjects(db: Kysely<DB>): ProjectsQuery {
  return db.selectFrom('projects').selectAll('projects');
}

const authorizedAtLeast = (actor: Actor, level: number) =>
  sql<SqlBool>`exists (select 1 from project_authorizations pa where pa.user_id = ${actor.user.id} and pa.project_id = projects.id and pa.access_level >= ${level})`;

type PersonalQuery = Pick<ListProjectsQuery, 'owned' | 'membership' | 'min_access_level'>;

/** With owned / membership / min_access_level, the access level the actor needs; null without. */
function personalLevel(q: PersonalQuery): number | null {
  if (!q.owned && !q.membership && q.min_access_level === undefined) return null;
  let level: number = ACCESS.GUEST;
  if (q.min_access_level !== undefined) level = q.min_access_level;
  // Owned: the personal namespace's projects and those of groups the actor owns, i.e. Owner access.
  if (q.owned) level = Math.max(level, ACCESS.OWNER);
  return level;
}

/**
 * The collection GET /projects starts from: what the actor may see, or, with owned / membership /
 * min_access_level, the projects the actor is authorized on (admins too). Anonymous callers asking
 * for those get nothing. A deep page tests the visibility rule's authorizations as a set.
 */
export function visibleProjects(db: Kysely<DB>, actor: Actor | null, q: PersonalQuery & Partial<Pick<ListProjectsQuery, 'page' | 'per_page'>>): ProjectsQuery {
  const base = allProjects(db);
  const level = personalLevel(q);
  if (level === null) {
    const { page, perPage } = pageOf(q);
    const test = (page - 1) * perPage >= SET_TEST_OFFSET ? 'set' : 'lookup';
    return base.where((eb) => projectVisibleTo(eb, actor, 'projects', test));
  }
  if (!actor) return base.where(sql<SqlBool>`1 = 0`);
  return base.where(() => authorizedAtLeast(actor, level));
}

/**
 * How a list built on `visible` (what visibleProjects returned for `q`) is counted when nothing
 * else narrows it, i.e. its conditions are still the very ones visibleProjects built (no filter,
 * scope or similarity order added one): as parts that indexes answer alone (core/pagination's
 * countParts) instead of testing every project. The visible projects are counted by the
 * visibility rule's own parts, the personal lists from the actor's authorizations. Undefined
 * otherwise: the list counts its own query.
 */
export function countPartsOf(db: Kysely<DB>, actor: Actor | null, q: PersonalQuery, visible: ProjectsQuery, list: ProjectsQuery): Countable[] | undefined {
  if (list.toOperationNode().where !== visible.toOperationNode().where) return undefined;
  const level = personalLevel(q);
  if (level === null) return projectsVisibleToParts(db, actor);
  if (!actor) return undefined;
  // Every row of project_authorizations has its project (the foreign key removes it with it).
  return [db.selectFrom('project_authorizations as pa').where('pa.user_id', '=', actor.user.id).where('pa.access_level', '>=', level)];
}

export interface FilterOptions {
  /** Custom-attribute filters and repository_storage apply for administrators only. */
  admin: boolean;
}

/** The filters every projects list shares (notes §1.2). */
export function filterProjects(qb: ProjectsQuery, actor: Actor | null, q: Partial<ListProjectsQuery>, options: FilterOptions): ProjectsQuery {
  if (q.starred && actor) {
    qb = qb.where((eb) =>
      eb.exists(eb.selectFrom('users_star_projects as s').select(sql`1`.as('one')).whereRef('s.project_id', '=', 'projects.id').where('s.user_id', '=', actor.user.id)),
    );
  }
  if (q.visibility !== undefined) qb = qb.where('projects.visibility_level', '=', VISIBILITY[q.visibility]);
  if (q.archived !== undefined) qb = qb.where('projects.archived', '=', q.archived);
  if (q.id_after !== undefined) qb = qb.where('projects.id', '>', q.id_after);
  if (q.id_before !== undefined) qb = qb.where('projects.id', '<', q.id_before);
  if (q.last_activity_after) qb = qb.where('projects.last_activity_at', '>', new Date(q.last_activity_after).toISOString());
  if (q.last_activity_before) qb = qb.where('projects.last_activity_at', '<', new Date(q.last_activity_before).toISOString());
  for (const topic of normalizeTopics(q.topic ?? [])) {
    qb = qb.where((eb) =>
      eb.exists(
        eb
          .selectFrom('project_topics as t')
          .select(sql`1`.as('one'))
          .whereRef('t.project_id', '=', 'projects.id')
          .where(sql`lower(t.name)`, '=', topic.toLowerCase()),
      ),
    );
  }
  if (q.search !== undefined) {
    const columns = q.search_namespaces ? ['projects.full_path', 'projects.name_with_namespace', 'projects.description'] : ['projects.path', 'projects.name', 'projects.description'];
    const match = fuzzyMatch(q.search, columns);
    if (match) qb = qb.where(() => match);
  }
  if (q.with_issues_enabled) qb = qb.where(() => projectFeatureOpenTo(actor, 'issues'));
  if (q.with_merge_requests_enabled) qb = qb.where(() => projectFeatureOpenTo(actor, 'merge_requests'));
  // Languages are detected from repository contents, which are not analysed yet: nothing matches.
  if (q.with_programming_language) qb = qb.where(sql<SqlBool>`1 = 0`);
  if (!options.admin) return qb;
  if (q.repository_storage !== undefined) qb = qb.where('projects.repository_storage', '=', q.repository_storage);
  for (const [key, value] of Object.entries(q.custom_attributes ?? {})) qb = qb.where(hasCustomAttribute('project', 'projects.id', key, value));
  return qb;
}

/** Topic names as the platform reads them: trimmed, without empties and duplicates. */
export function normalizeTopics(topics: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of topics) {
    const name = raw.trim();
    if (name === '' || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push(name);
  }
  return out;
}

export type ProjectOrder = NonNullable<ListProjectsQuery['order_by']>;

/**
 * The order a list really uses: statistics orders are for administrators, similarity for
 * signed-in searches; others get the default created_at.
 */
export function effectiveOrder(q: Pick<ListProjectsQuery, 'order_by' | 'search'>, actor: Actor | null): ProjectOrder {
  const orderBy = q.order_by ?? 'created_at';
  if ((STATISTICS_ORDERS as readonly string[]).includes(orderBy) && !actor?.isAdmin) return 'created_at';
  if (orderBy === 'similarity' && !(actor && q.search?.trim())) return 'created_at';
  return orderBy;
}

/**
 * Orders a list, the id breaking ties in the same direction. Similarity ranks the best matches
 * first and keeps to the actor's own projects, as the platform does.
 */
export function orderProjects(qb: ProjectsQuery, orderBy: ProjectOrder, sort: 'asc' | 'desc', actor: Actor | null, search: string): ProjectsQuery {
  if (orderBy === 'similarity' && actor) {
    return qb.where(() => authorizedAtLeast(actor, ACCESS.GUEST)).orderBy(similarityRank(search)).orderBy('projects.id', 'desc');
  }
  if ((STATISTICS_ORDERS as readonly string[]).includes(orderBy)) {
    const column = sql.ref(`ps.${orderBy}`);
    return qb.orderBy(sql`coalesce((select ${column} from project_statistics ps where ps.project_id = projects.id), 0)`, sort).orderBy('projects.id', sort);
  }
  if (orderBy === 'id') return qb.orderBy('projects.id', sort);
  const ordered = orderBy === 'name' ? qb.orderBy(sql`lower(projects.name)`, sort) : qb.orderBy(`projects.${orderBy as 'path' | 'created_at' | 'updated_at' | 'last_activity_at'}`, sort);
  return ordered.orderBy('projects.id', sort);
}

/**
 * With a search, the projects that match it best come first: path, then name equal to the term,
 * then starting with it. (The platform scores trigram similarity, which SQLite lacks.)
 */
function similarityRank(search: string) {
  const term = search.trim().toLowerCase();
  return sql`case when lower(projects.path) = ${term} then 0 when lower(projects.name) = ${term} then 1 when ${startsWithText(sql`lower(projects.path)`, term)} then 2 when ${startsWithText(sql`lower(projects.name)`, term)} then 3 else 4 end`;
}

/** Personal projects of a user (GET /users/:user_id/projects), as the actor may see them. */
export function personalProjectsOf(qb: ProjectsQuery, userId: number): ProjectsQuery {
  return qb.where('projects.namespace_id', 'in', (eb) => eb.selectFrom('namespaces').select('id').where('type', '=', 'User').where('owner_id', '=', userId));
}

/** Projects of a group, and of its subgroups with `includeSubgroups`. */
export function groupProjectsOf(qb: ProjectsQuery, group: NamespaceRow, includeSubgroups: boolean): ProjectsQuery {
  if (!includeSubgroups) return qb.where('projects.namespace_id', '=', group.id);
  return qb.where('projects.namespace_id', 'in', (eb) =>
    eb.selectFrom('namespaces').select('id').where('traversal_path', 'like', `${escapeLike(group.traversal_path)}%`),
  );
}

// ---- Single reads ---------------------------------------------------------------------------------

/** A user by id (digits) or username (any case). */
export function findUserByIdOrUsername(db: Kysely<DB>, ref: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => (/^\d+$/.test(ref) ? eb('id', '=', Number(ref)) : eb(sql`lower(username)`, '=', ref.toLowerCase())))
    .executeTakeFirst();
}

export function findProjectById(db: Kysely<DB>, id: number): Promise<ProjectRow | undefined> {
  return allProjects(db).where('projects.id', '=', id).executeTakeFirst();
}

/** Users of a project: everyone it is authorized to (members, inherited ones and the namespace owner). */
export function projectUsers(db: Kysely<DB>, projectId: number) {
  return db
    .selectFrom('users')
    .selectAll('users')
    .where('users.id', 'in', (eb) => eb.selectFrom('project_authorizations').select('user_id').where('project_id', '=', projectId));
}

export function userSearch(search: string): { where: Expression<SqlBool> | null; rank: ReturnType<typeof sql> } {
  const term = searchTerm(search);
  const where = fuzzyMatch(term, ['users.name', 'users.username']);
  return {
    where: where === null ? null : sql<SqlBool>`(${where} or lower(users.email) = ${term})`,
    rank: sql`case when lower(users.name) = ${term} then 0 when lower(users.username) = ${term} then 1 when lower(users.email) = ${term} then 2 else 3 end`,
  };
}
