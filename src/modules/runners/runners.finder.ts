// Reading runners as 14.x does (`app/models/ci/runner.rb` scopes, `User#ci_owned_runners`,
// `Ci::RunnerPolicy`): a user owns the runners of the projects they maintain and of the groups
// (and their subgroups) they own; administrators reach every runner.
import { type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Actor } from '../../core/auth/actor.ts';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { inSubtree } from '../../core/access/subtree.ts';
import { escapeLike } from '../../core/search.ts';
import type { CiRunnerRow, DB, NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { ONLINE_MS } from './runners.presenter.ts';
import type { RunnerFilters } from './runners.schemas.ts';

type RunnersQuery = SelectQueryBuilder<DB, 'ci_runners', CiRunnerRow>;

const today = (now: Date) => now.toISOString().slice(0, 10);

/** Ids of the runners a user owns (`User#ci_owned_runners`). */
function ownedRunnerIds(db: Kysely<DB>, userId: number, now: Date) {
  const maintained = db.selectFrom('project_authorizations').select('project_id').where('user_id', '=', userId).where('access_level', '>=', ACCESS.MAINTAINER);
  const projectRunners = db.selectFrom('ci_runner_projects').select('runner_id').where('project_id', 'in', maintained);
  const groupRunners = db
    .selectFrom('ci_runner_namespaces as rn')
    .innerJoin('namespaces as n', 'n.id', 'rn.namespace_id')
    .select('rn.runner_id')
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('members as m')
          .innerJoin('namespaces as g', 'g.id', 'm.source_id')
          .select('m.id')
          .where('m.source_type', '=', 'Namespace')
          .where('m.user_id', '=', userId)
          .where('m.access_level', '>=', ACCESS.OWNER)
          .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today(now))]))
          .where(inSubtree('n.traversal_path', sql.ref('g.traversal_path'))),
      ),
    );
  return projectRunners.union(groupRunners);
}

const online = (now: Date) => new Date(now.getTime() - ONLINE_MS).toISOString();

/** One `scope`/`type`/`status` value as the platform's scope of that name. */
function scoped(q: RunnersQuery, scope: string, now: Date): RunnersQuery {
  switch (scope) {
    case 'shared':
      return q.where('runner_type', '=', 'instance_type');
    case 'specific':
      return q.where('runner_type', 'in', ['project_type', 'group_type']);
    case 'active':
      return q.where('active', '=', true);
    case 'paused':
      return q.where('active', '=', false);
    case 'online':
      return q.where('contacted_at', '>', online(now));
    // Every runner not online, never contacted ones included, as 14.x's `where.not(id: online)`.
    case 'offline':
      return q.where((eb) => eb.or([eb('contacted_at', 'is', null), eb('contacted_at', '<=', online(now))]));
    case 'not_connected':
      return q.where('contacted_at', 'is', null);
    default:
      return q.where('runner_type', '=', scope);
  }
}

/** The runner has every tag (tags are compared without case, as acts-as-taggable does). */
function taggedWith(tag: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref('tag_list')}) like ${`%${escapeLike(JSON.stringify(tag.toLowerCase()))}%`} escape '\\'`;
}

function filtered(q: RunnersQuery, filters: RunnerFilters, now: Date): RunnersQuery {
  for (const scope of [filters.scope, filters.type, filters.status]) if (scope) q = scoped(q, scope, now);
  for (const tag of filters.tag_list ?? []) q = q.where(taggedWith(tag));
  return q.orderBy('id');
}

const runners = (db: Kysely<DB>) => db.selectFrom('ci_runners').selectAll();

/** GET /runners: the caller's own runners. */
export function ownedRunners(db: Kysely<DB>, userId: number, filters: RunnerFilters, now: Date): RunnersQuery {
  return filtered(runners(db).where('id', 'in', ownedRunnerIds(db, userId, now)), filters, now);
}

/** GET /runners/all. */
export function allRunners(db: Kysely<DB>, filters: RunnerFilters, now: Date): RunnersQuery {
  return filtered(runners(db), filters, now);
}

/** GET /projects/:id/runners (`owned_or_instance_wide`): the project's, its groups', and the instance's. */
export function projectRunners(db: Kysely<DB>, project: ProjectRow, namespace: NamespaceRow, filters: RunnerFilters, now: Date): RunnersQuery {
  const groups = namespace.type === 'Group' ? ancestorIds(namespace.traversal_path) : [];
  const q = runners(db).where((eb) =>
    eb.or([
      eb('runner_type', '=', 'instance_type'),
      eb('id', 'in', eb.selectFrom('ci_runner_projects').select('runner_id').where('project_id', '=', project.id)),
      ...(groups.length ? [eb('id', 'in', eb.selectFrom('ci_runner_namespaces').select('runner_id').where('namespace_id', 'in', groups))] : []),
    ]),
  );
  return filtered(q, filters, now);
}

/** GET /groups/:id/runners (`belonging_to_group` with ancestors): the runners of the group and of its parents. */
export function groupRunners(db: Kysely<DB>, group: NamespaceRow, filters: RunnerFilters, now: Date): RunnersQuery {
  const groups = ancestorIds(group.traversal_path);
  return filtered(runners(db).where('id', 'in', db.selectFrom('ci_runner_namespaces').select('runner_id').where('namespace_id', 'in', groups)), filters, now);
}

export async function findRunner(db: Kysely<DB>, id: number): Promise<CiRunnerRow | null> {
  return (await runners(db).where('id', '=', id).executeTakeFirst()) ?? null;
}

/** 14.x RunnerPolicy's `owned_runner`: whether the actor owns the runner (administrators own every one). */
export async function ownsRunner(db: Kysely<DB>, actor: Actor, runnerId: number, now: Date): Promise<boolean> {
  if (actor.isAdmin) return true;
  const row = await db.selectFrom(ownedRunnerIds(db, actor.user.id, now).as('owned')).select('runner_id').where('runner_id', '=', runnerId).executeTakeFirst();
  return row !== undefined;
}

/** How many projects a runner serves. */
export async function runnerProjectCount(db: Kysely<DB>, runnerId: number): Promise<number> {
  const row = await db.selectFrom('ci_runner_projects').select((eb) => eb.fn.countAll<number>().as('n')).where('runner_id', '=', runnerId).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The runner's projects and groups that the viewer may see: all for administrators, else those they are a member of. */
export async function runnerRelations(db: Kysely<DB>, actor: Actor, runnerId: number, now: Date): Promise<{ projects: ProjectRow[]; groups: NamespaceRow[] }> {
  let projects = db
    .selectFrom('projects')
    .selectAll()
    .where('id', 'in', db.selectFrom('ci_runner_projects').select('project_id').where('runner_id', '=', runnerId))
    .orderBy('id');
  let groups = db
    .selectFrom('namespaces as n')
    .selectAll('n')
    .where('n.id', 'in', db.selectFrom('ci_runner_namespaces').select('namespace_id').where('runner_id', '=', runnerId))
    .orderBy('n.id');
  if (!actor.isAdmin) {
    const userId = actor.user.id;
    projects = projects.where('id', 'in', db.selectFrom('project_authorizations').select('project_id').where('user_id', '=', userId));
    groups = groups.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('members as m')
          .innerJoin('namespaces as g', 'g.id', 'm.source_id')
          .select('m.id')
          .where('m.source_type', '=', 'Namespace')
          .where('m.user_id', '=', userId)
          .where((eb) => eb.or([eb('m.expires_at', 'is', null), eb('m.expires_at', '>', today(now))]))
          .where(inSubtree('n.traversal_path', sql.ref('g.traversal_path'))),
      ),
    );
  }
  const [p, g] = await Promise.all([projects.execute(), groups.execute()]);
  return { projects: p, groups: g };
}
