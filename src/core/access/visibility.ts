// Rules of the ability table as SQL: the projects an actor may see (read_project) and those whose
// code the actor may download (download_code). Each is one indexed test per row (visibility_level,
// then a point lookup in project_authorizations or a probe of the actor's authorizations collected
// once), so its cost per row does not grow with the number of projects; read_project also comes as
// parts that count without a test per project. The groups an actor may see (read_group) come last.
import { type ExpressionBuilder, type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import type { Actor } from '../auth/actor.ts';
import type { Countable } from '../pagination.ts';
import { DOWNLOAD_CODE_MINIMUM } from './abilities.ts';
import { ACCESS, VISIBILITY, visibleLevels } from './levels.ts';
import { inSubtree } from './subtree.ts';

/**
 * How a project's authorization is tested: 'lookup', a point lookup in project_authorizations per
 * project tested; 'set', a test against the actor's authorized projects collected once. A list that
 * reads past many rows before its page (a deep offset) tests thousands of projects, for which the
 * set costs about half; a first page tests a few dozen, which would not repay building it.
 */
export type AuthorizationTest = 'lookup' | 'set';

/** From this many rows skipped on, a list tests authorizations against a set (measured on SQLite). */
export const SET_TEST_OFFSET = 200;

/**
 * What the project conditions read of an actor: whether they are an administrator and external
 * (which decide the condition's shape) and their id (a bound value, so a prepared statement can
 * pass a placeholder).
 */
export interface ProjectReader {
  readonly isAdmin: boolean;
  readonly user: { readonly id: number; readonly external: boolean };
}

/** A condition on the `projects` table (aliased `projectsAlias`) that holds for projects the actor may read. */
export function projectVisibleTo<TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  actor: ProjectReader | null,
  projectsAlias = 'projects',
  test: AuthorizationTest = 'lookup',
): Expression<SqlBool> {
  if (test === 'set' && actor && !actor.isAdmin) return visibleOrInAuthorizedSet(actor, projectsAlias);
  return visibleOrAuthorized(eb, actor, projectsAlias, null);
}

/**
 * A condition on `projects` that holds for projects whose code the actor may download (the
 * ability table's download_code): those the actor sees without a membership, and those the actor
 * is authorized on at Reporter or above.
 */
export function projectCodeVisibleTo<TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, actor: ProjectReader | null, projectsAlias = 'projects'): Expression<SqlBool> {
  return visibleOrAuthorized(eb, actor, projectsAlias, DOWNLOAD_CODE_MINIMUM);
}

/**
 * The projects the actor may read (projectVisibleTo, from the same levels) as disjoint parts, to
 * count them without testing every project: those at a level the actor sees without a membership
 * (the counters kept per level), and those at any other level that the actor is authorized on
 * (the actor's rows of project_authorizations, which carry the project's level: an index range).
 * An administrator's are all projects, which SQLite counts from the b-tree alone.
 */
export function projectsVisibleToParts(db: Kysely<DB>, actor: Actor | null): Countable[] {
  if (actor?.isAdmin) return [db.selectFrom('projects')];
  const levels = levelsOf(actor);
  const byLevel = db
    .selectFrom('project_visibility_counts')
    .select(sql<number>`coalesce(sum(projects), 0)`.as('count'))
    .where('visibility_level', 'in', levels);
  if (!actor) return [{ tally: byLevel }];
  // Named, not `not in levels`: an equality on the index's second column reads only those entries.
  const otherLevels = ALL_LEVELS.filter((level) => !levels.includes(level));
  const authorizedElsewhere = db.selectFrom('project_authorizations').where('user_id', '=', actor.user.id).where('visibility_level', 'in', otherLevels);
  return [{ tally: byLevel }, authorizedElsewhere];
}

const ALL_LEVELS = Object.values(VISIBILITY);
const levelsOf = (actor: ProjectReader | null) => visibleLevels(actor ? { isAdmin: actor.isAdmin, external: actor.user.external } : null);

/**
 * projectVisibleTo with the 'set' test: visible without a membership, or among the projects the
 * actor is authorized on at the other levels (read from the (user_id, visibility_level,
 * project_id) index alone). The unary plus signs keep SQLite from answering the `or` with two
 * index ranges and a sort of every match: it walks the index of the list's order and probes the
 * set, behind a Bloom filter, per row.
 */
function visibleOrInAuthorizedSet(actor: ProjectReader, projectsAlias: string): Expression<SqlBool> {
  const levels = levelsOf(actor);
  const otherLevels = ALL_LEVELS.filter((level) => !levels.includes(level));
  const visibility = sql.ref(`${projectsAlias}.visibility_level`);
  const id = sql.ref(`${projectsAlias}.id`);
  return sql<SqlBool>`(+${visibility} in (${sql.join(levels)}) or +${id} in (select pa.project_id from project_authorizations pa where pa.user_id = ${actor.user.id} and pa.visibility_level in (${sql.join(otherLevels)})))`;
}

/** Visible without a membership, or authorized (at `minimum` or above when given). */
function visibleOrAuthorized<TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, actor: ProjectReader | null, projectsAlias: string, minimum: number | null): Expression<SqlBool> {
  // Administrators see every level: no condition at all, so that a list walks the index of its
  // order instead of sorting every project matched by `visibility_level in (0, 10, 20)`.
  if (actor?.isAdmin) return sql<SqlBool>`1 = 1`;
  const levels = levelsOf(actor);
  const visibility = sql.ref(`${projectsAlias}.visibility_level`);
  const byLevel = sql<SqlBool>`${visibility} in (${sql.join(levels)})`;
  if (!actor) return byLevel;
  const id = sql.ref(`${projectsAlias}.id`);
  const atLeast = minimum === null ? sql.raw('') : sql` and pa.access_level >= ${minimum}`;
  return eb.or([byLevel, sql<SqlBool>`exists (select 1 from project_authorizations pa where pa.user_id = ${actor.user.id} and pa.project_id = ${id}${atLeast})`]);
}

/**
 * A condition on `namespaces` (aliased `groupsAlias`) that holds for the groups the actor may read,
 * by the rule loadGroup applies to one group: visible at the actor's levels, or a membership (Guest
 * or above, unexpired) in the group or above it, or a project the actor reaches below it.
 */
export function groupVisibleTo(actor: Actor | null, now: Date, groupsAlias = 'namespaces'): Expression<SqlBool> {
  if (actor?.isAdmin) return sql<SqlBool>`1 = 1`;
  const byLevel = sql<SqlBool>`${sql.ref(`${groupsAlias}.visibility_level`)} in (${sql.join(levelsOf(actor))})`;
  if (!actor) return byLevel;
  const path = sql.ref<string>(`${groupsAlias}.traversal_path`);
  const today = now.toISOString().slice(0, 10);
  return sql<SqlBool>`(${byLevel}
    or exists (select 1 from members m join namespaces mg on mg.id = m.source_id
                where m.source_type = 'Namespace' and m.user_id = ${actor.user.id} and m.access_level >= ${ACCESS.GUEST}
                  and (m.expires_at is null or m.expires_at > ${today}) and ${inSubtree(`${groupsAlias}.traversal_path`, sql.ref<string>('mg.traversal_path'))})
    or exists (select 1 from project_authorizations pa join projects p on p.id = pa.project_id join namespaces pn on pn.id = p.namespace_id
                where pa.user_id = ${actor.user.id} and ${inSubtree('pn.traversal_path', path)}))`;
}
