// Job rows → the API's Job and Bridge entities (notes gitlab-ci.md §4.1, §4.3).
import type { CiBuildRow, ProjectRow } from '../../db/schema.ts';
import type { Commit } from '../../git/commits.ts';
import { presentCommit } from '../../domain/commit-entity.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { type PipelineView, presentPipelineBasic } from '../pipelines/pipelines.presenter.ts';
import { presentProjectIdentity } from '../projects/projects.presenter.ts';
import { presentRunner } from '../runners/runners.presenter.ts';
import { presentUser } from '../users/users.presenter.ts';
import type { JobRelations } from './ci-jobs.finder.ts';
import { type AllowedAgents, type Bridge, type Job, type JobBasicWithProject, PROJECT_ROLES } from './ci-jobs.schemas.ts';
import { environmentSlug, environmentTier } from '../../ci/slug.ts';
import { jobWebUrl } from './job-payload.ts';

export interface JobView {
  baseUrl: string;
  projectWebUrl: string;
  projectFullPath: string;
  viewer: { id: number; isAdmin: boolean } | null;
  relations: JobRelations;
  commits: Map<string, Commit>;
  now: Date;
}

const seconds = (from: string | null, to: string | null, now: Date) => (from === null ? null : ((to === null ? now.getTime() : Date.parse(to)) - Date.parse(from)) / 1000);

/** How a pipeline is shown: under the jobs' project, or under its own (a multi-project downstream). */
function pipelineView(projectId: number, view: JobView): PipelineView {
  const other = view.relations.projects.get(projectId);
  if (other) return { baseUrl: view.baseUrl, projectWebUrl: projectWebUrl(view.baseUrl, other), projectFullPath: other.full_path };
  return { baseUrl: view.baseUrl, projectWebUrl: view.projectWebUrl, projectFullPath: view.projectFullPath };
}

function basic(row: CiBuildRow, view: JobView) {
  const pipeline = view.relations.pipelines.get(row.pipeline_id);
  if (!pipeline) throw new Error(`job ${row.id} without its pipeline`);
  const user = row.user_id === null ? undefined : view.relations.users.get(row.user_id);
  const commit = view.commits.get(pipeline.sha);
  return {
    id: row.id,
    status: row.status,
    stage: row.stage,
    name: row.name,
    ref: row.ref,
    tag: row.tag,
    coverage: row.coverage,
    allow_failure: row.allow_failure,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration: seconds(row.started_at, row.finished_at, view.now),
    queued_duration: seconds(row.queued_at, row.started_at, view.now),
    user: user ? presentUser(user, { baseUrl: view.baseUrl }, view.viewer) : null,
    commit: commit ? presentCommit(commit, view.projectWebUrl) : null,
    pipeline: presentPipelineBasic(pipeline, pipelineView(pipeline.project_id, view)),
    web_url: jobWebUrl(view.projectWebUrl, row.id),
  };
}

export function presentJob(row: CiBuildRow, view: JobView): Job {
  const artifacts = (view.relations.artifacts.get(row.id) ?? []).filter((a) => !a.expire_at || a.expire_at > view.now.toISOString());
  const archive = artifacts.find((a) => a.file_type === 'archive');
  const runner = row.runner_id === null ? undefined : view.relations.runners.get(row.runner_id);
  // The log is listed as the platform lists it, archived (a row) or still live (its chunks).
  const listed: Job['artifacts'] = artifacts.map((a) => ({ file_type: a.file_type, size: Number(a.size), filename: a.filename, file_format: a.file_type === 'trace' ? null : a.file_format }));
  if (Number(row.trace_size) > 0 && row.erased_at === null && !artifacts.some((a) => a.file_type === 'trace')) listed.push({ file_type: 'trace', size: Number(row.trace_size), filename: 'job.log', file_format: null });
  return {
    ...basic(row, view),
    ...(archive ? { artifacts_file: { filename: archive.filename, size: Number(archive.size) } } : {}),
    artifacts: listed,
    runner: runner ? presentRunner(runner, view.now) : null,
    artifacts_expire_at: row.artifacts_expire_at,
    tag_list: (JSON.parse(row.tag_list) as string[]).slice().sort(),
  };
}

export function presentBridge(row: CiBuildRow, view: JobView): Bridge {
  const downstream = row.downstream_pipeline_id === null ? undefined : view.relations.pipelines.get(row.downstream_pipeline_id);
  return { ...basic(row, view), downstream_pipeline: downstream ? presentPipelineBasic(downstream, pipelineView(downstream.project_id, view)) : null };
}

export function presentJobBasicWithProject(row: CiBuildRow, view: JobView, project: ProjectRow): JobBasicWithProject {
  return { ...basic(row, view), project: presentProjectIdentity(project) };
}

export interface AllowedAgentsView {
  job: CiBuildRow;
  /** The project's group and its ancestors, root first; none for a project of a user. */
  groupIds: readonly number[];
  user: { id: number; username: string };
  /** The user's highest access level in the project (max_member_access). */
  accessLevel: number;
}

/**
 * The job's allowed agents: none, Quarry having no cluster agents. The environment is the job's,
 * with the tier and slug the platform gives a new environment of that name.
 */
export function presentAllowedAgents({ job, groupIds, user, accessLevel }: AllowedAgentsView): AllowedAgents {
  const shown: AllowedAgents = {
    allowed_agents: [],
    job: { id: job.id },
    pipeline: { id: job.pipeline_id },
    project: { id: job.project_id, groups: groupIds.map((id) => ({ id })) },
    user: { id: user.id, username: user.username, roles_in_project: PROJECT_ROLES.filter(([, level]) => level <= accessLevel).map(([role]) => role) },
  };
  if (job.environment !== null) {
    const tier = (JSON.parse(job.options) as { environment?: { deployment_tier?: string } }).environment?.deployment_tier ?? null;
    shown.environment = { tier: environmentTier(job.environment, tier), slug: environmentSlug(job.environment) };
  }
  return shown;
}
