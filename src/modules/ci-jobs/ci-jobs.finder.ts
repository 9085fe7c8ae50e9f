// Reading jobs: lists of a project or a pipeline (newest first, retried ones hidden unless asked),
// one job, and what their entities show (users, pipelines and the other projects of downstream
// pipelines, runners, artifacts) read in one query each.
import type { Kysely } from 'kysely';
import type { CiBuildRow, CiJobArtifactRow, CiPipelineRow, CiRunnerRow, DB, ProjectRow, UserRow } from '../../db/schema.ts';

export interface JobFilters {
  scope?: string | string[];
  includeRetried?: boolean;
  type: 'build' | 'bridge';
}

export function findJobs(db: Kysely<DB>, where: { projectId: number; pipelineId?: number }, filters: JobFilters) {
  let q = db.selectFrom('ci_builds').selectAll().where('project_id', '=', where.projectId).where('type', '=', filters.type);
  if (where.pipelineId !== undefined) q = q.where('pipeline_id', '=', where.pipelineId);
  if (!filters.includeRetried) q = q.where('retried', '=', false);
  const scope = filters.scope === undefined ? [] : Array.isArray(filters.scope) ? filters.scope : [filters.scope];
  if (scope.length > 0) q = q.where('status', 'in', scope);
  return q.orderBy('id', 'desc');
}

/** A runner's jobs; in no particular order (the table's) unless ordered by id, as 14.x's RunnerJobsFinder. */
export function findRunnerJobs(db: Kysely<DB>, runnerId: number, filters: { status?: string; order_by?: 'id'; sort?: 'asc' | 'desc' }) {
  let q = db.selectFrom('ci_builds').selectAll().where('runner_id', '=', runnerId).where('type', '=', 'build');
  if (filters.status) q = q.where('status', '=', filters.status);
  return filters.order_by ? q.orderBy('id', filters.sort ?? 'desc') : q.orderBy('id');
}

export async function findJob(db: Kysely<DB>, projectId: number, id: number, type: 'build' | 'bridge' = 'build'): Promise<CiBuildRow | null> {
  return (await db.selectFrom('ci_builds').selectAll().where('project_id', '=', projectId).where('id', '=', id).where('type', '=', type).executeTakeFirst()) ?? null;
}

export interface JobRelations {
  users: Map<number, UserRow>;
  pipelines: Map<number, CiPipelineRow>;
  /** The projects of those pipelines that belong to none of the jobs' projects (multi-project downstreams). */
  projects: Map<number, ProjectRow>;
  runners: Map<number, CiRunnerRow>;
  artifacts: Map<number, CiJobArtifactRow[]>;
}

const ids = (values: (number | null)[]) => [...new Set(values.filter((v): v is number => v !== null))];

export async function jobRelations(db: Kysely<DB>, jobs: readonly CiBuildRow[]): Promise<JobRelations> {
  const userIds = ids(jobs.map((j) => j.user_id));
  const pipelineIds = ids([...jobs.map((j) => j.pipeline_id), ...jobs.map((j) => j.downstream_pipeline_id)]);
  const runnerIds = ids(jobs.map((j) => j.runner_id));
  const jobIds = jobs.map((j) => j.id);
  const [users, pipelines, runners, artifacts] = await Promise.all([
    userIds.length ? db.selectFrom('users').selectAll().where('id', 'in', userIds).execute() : [],
    pipelineIds.length ? db.selectFrom('ci_pipelines').selectAll().where('id', 'in', pipelineIds).execute() : [],
    runnerIds.length ? db.selectFrom('ci_runners').selectAll().where('id', 'in', runnerIds).execute() : [],
    jobIds.length ? db.selectFrom('ci_job_artifacts').selectAll().where('build_id', 'in', jobIds).orderBy('id').execute() : [],
  ]);
  const byBuild = new Map<number, CiJobArtifactRow[]>();
  for (const a of artifacts) byBuild.set(a.build_id, [...(byBuild.get(a.build_id) ?? []), a]);
  const own = new Set(jobs.map((j) => j.project_id));
  const otherIds = ids(pipelines.map((p) => p.project_id)).filter((id) => !own.has(id));
  const projects = otherIds.length ? await db.selectFrom('projects').selectAll().where('id', 'in', otherIds).execute() : [];
  return {
    users: new Map(users.map((u) => [u.id, u])),
    pipelines: new Map(pipelines.map((p) => [p.id, p])),
    projects: new Map(projects.map((p) => [p.id, p])),
    runners: new Map(runners.map((r) => [r.id, r])),
    artifacts: byBuild,
  };
}
