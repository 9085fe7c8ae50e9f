// Reading pipelines: the project's list with every filter and order of the 14.x API, one
// pipeline, its variables, and what its detail shows (its user, coverage, warnings).
import { type Kysely, PostgresAdapter, type SqlBool, sql } from 'kysely';
import { type Countable, cappedCount } from '../../core/pagination.ts';
import type { SecretBox } from '../../core/secret-box.ts';
import type { CiPipelineRow, DB, UserRow } from '../../db/schema.ts';
import { DANGLING_SOURCES, type ListPipelinesQuery } from './pipelines.schemas.ts';

const SCOPE_STATUSES: Record<string, string[]> = {
  running: ['running'],
  pending: ['pending'],
  finished: ['success', 'failed', 'canceled', 'skipped'],
};

/**
 * The project's pipelines that the filters keep. Each common filter, alone or with a status, is an
 * index range in id order (migration 0015), so a page reads the first entries of one range.
 */
function filteredPipelines(db: Kysely<DB>, projectId: number, filters: ListPipelinesQuery, forPage: boolean) {
  let q = db.selectFrom('ci_pipelines').selectAll('ci_pipelines').where('ci_pipelines.project_id', '=', projectId);
  const scope = filters.scope;
  if (scope && SCOPE_STATUSES[scope]) q = q.where('ci_pipelines.status', 'in', SCOPE_STATUSES[scope]);
  if (scope === 'tags') q = q.where('ci_pipelines.tag', '=', true);
  if (scope === 'branches') q = q.where('ci_pipelines.tag', '=', false);
  // The latest pipeline of each ref for branches and tags, as the platform shows them.
  if (scope === 'branches' || scope === 'tags') {
    q = q.where(({ eb, selectFrom }) =>
      eb(
        'ci_pipelines.id',
        'in',
        selectFrom('ci_pipelines as latest')
          .select((x) => x.fn.max('latest.id').as('id'))
          .where('latest.project_id', '=', projectId)
          .where('latest.tag', '=', scope === 'tags')
          .groupBy('latest.ref'),
      ),
    );
  }
  if (filters.status) q = q.where('ci_pipelines.status', '=', filters.status);
  if (filters.source) q = q.where('ci_pipelines.source', '=', filters.source);
  if (filters.ref) q = q.where('ci_pipelines.ref', '=', filters.ref);
  if (filters.sha) q = q.where('ci_pipelines.sha', '=', filters.sha);
  if (filters.yaml_errors === true) q = q.where('ci_pipelines.yaml_errors', 'is not', null);
  if (filters.yaml_errors === false) q = q.where('ci_pipelines.yaml_errors', 'is', null);
  if (filters.username) {
    // One user at most (usernames are unique): an equality, which the user's index range serves in id order.
    const username = filters.username.toLowerCase();
    q = q.where('ci_pipelines.user_id', '=', (eb) => eb.selectFrom('users').select('id').where((x) => x(x.fn('lower', ['username']), '=', username)));
  }
  // SQLite keeps no statistics of how many rows a time bound keeps, and would sort the bound's whole
  // range of the updated_at index to find a page: there a page walks the pipelines newest first
  // (`+column` keeps the index out of the plan), among which the recently updated ones are. The
  // count reads that index; PostgreSQL weighs both plans itself.
  const walk = forPage && !(db.getExecutor().adapter instanceof PostgresAdapter);
  const updated = (op: '<' | '>', at: string) => sql<SqlBool>`${walk ? sql`+` : sql``}${sql.ref('ci_pipelines.updated_at')} ${sql.raw(op)} ${new Date(at).toISOString()}`;
  if (filters.updated_after) q = q.where(updated('>', filters.updated_after));
  if (filters.updated_before) q = q.where(updated('<', filters.updated_before));
  return q;
}

export function findPipelines(db: Kysely<DB>, projectId: number, filters: ListPipelinesQuery) {
  let q = filteredPipelines(db, projectId, filters, true);
  const direction = filters.sort ?? 'desc';
  const order = filters.order_by ?? 'id';
  if (order !== 'id') q = q.orderBy(`ci_pipelines.${order}`, direction);
  return q.orderBy('ci_pipelines.id', direction);
}

/** The FILTERS a list may carry; without any, its count is the project's counter. */
const FILTERS = ['scope', 'status', 'source', 'ref', 'sha', 'yaml_errors', 'name', 'username', 'updated_after', 'updated_before'] as const;

/**
 * A tally of the project's pipelines or latest jobs from the counters the triggers keep, for a list
 * without filters; undefined otherwise (the list's own rows are counted).
 */
export function projectCount(db: Kysely<DB>, projectId: number, what: 'pipelines' | 'jobs', filters: Record<string, unknown>): Countable[] | undefined {
  if (FILTERS.some((f) => filters[f] !== undefined)) return undefined;
  return [{ tally: db.selectNoFrom((eb) => eb.fn.coalesce(eb.selectFrom('ci_project_counts').select(what).where('project_id', '=', projectId), eb.lit(0)).as('count')) }];
}

/**
 * What X-Total of a pipelines list counts: the project's counter without filters; else the
 * filtered rows up to the 10,001 that tell a total not shown, from the filters' index range.
 */
export function pipelinesCount(db: Kysely<DB>, projectId: number, filters: ListPipelinesQuery): Countable[] {
  return projectCount(db, projectId, 'pipelines', filters) ?? [cappedCount(db, filteredPipelines(db, projectId, filters, false))];
}

export async function findPipeline(db: Kysely<DB>, projectId: number, id: number): Promise<CiPipelineRow | null> {
  return (await db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function latestPipeline(db: Kysely<DB>, projectId: number, ref: string): Promise<CiPipelineRow | null> {
  return (await db.selectFrom('ci_pipelines').selectAll().where('project_id', '=', projectId).where('ref', '=', ref).orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null;
}

/** A commit's latest pipeline of its own CI (DANGLING_SOURCES aside): the commit detail's status and last pipeline. */
export async function latestPipelineForSha(db: Kysely<DB>, projectId: number, sha: string): Promise<CiPipelineRow | null> {
  const row = await db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('sha', '=', sha)
    .where('source', 'not in', DANGLING_SOURCES)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ?? null;
}

/** What the detail of a pipeline shows beyond its row. */
export async function pipelineDetailParts(db: Kysely<DB>, row: CiPipelineRow): Promise<{ user: UserRow | null; coverage: string | null; withWarnings: boolean }> {
  const user = row.user_id === null ? null : ((await db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirst()) ?? null);
  const jobs = await db.selectFrom('ci_builds').select(['coverage', 'status', 'allow_failure']).where('pipeline_id', '=', row.id).where('retried', '=', false).execute();
  const covered = jobs.map((j) => j.coverage).filter((c): c is number => c !== null);
  const coverage = covered.length === 0 ? null : (covered.reduce((a, b) => a + b, 0) / covered.length).toFixed(2);
  const withWarnings = jobs.some((j) => j.allow_failure && (j.status === 'failed' || j.status === 'canceled'));
  return { user, coverage, withWarnings };
}

export async function pipelineVariables(db: Kysely<DB>, box: SecretBox, pipelineId: number) {
  const rows = await db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute();
  return rows.map((r) => ({ variable_type: r.variable_type, key: r.key, value: box.open(r.value_encrypted) }));
}

export interface PipelinesMergeRequest {
  id: number;
  project_id: number;
  source_branch: string;
}

/**
 * The pipelines of a merge request (Ci::PipelinesForMergeRequestFinder): its own merge request
 * pipelines, and the branch pipelines of its source branch at any of `shas` (its commits), newest first.
 */
export function mergeRequestPipelines(db: Kysely<DB>, mr: PipelinesMergeRequest, shas: readonly string[]) {
  return db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', mr.project_id)
    .where((eb) => {
      const own = eb('merge_request_id', '=', mr.id);
      if (shas.length === 0) return own;
      return eb.or([own, eb.and([eb('ref', '=', mr.source_branch), eb('tag', '=', false), eb('merge_request_id', 'is', null), eb('sha', 'in', [...shas])])]);
    })
    .orderBy('id', 'desc');
}

/** A merge request's head pipeline: the latest of its pipelines at its source head `sha` (actual_head_pipeline). */
export async function mergeRequestHeadPipeline(db: Kysely<DB>, mr: PipelinesMergeRequest, sha: string): Promise<CiPipelineRow | null> {
  return (await mergeRequestPipelines(db, mr, [sha]).where('sha', '=', sha).limit(1).executeTakeFirst()) ?? null;
}
