// The job a runner receives from POST /jobs/request (notes gitlab-ci.md §1.4 and §8): key order,
// shapes and `null`s as the platform's 14.x entity writes them.
import type { ServiceContext } from '../../core/context.ts';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiBuildRow, CiPipelineRow, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { loadProjectSettings } from '../../domain/settings/project-settings.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { getCommit } from '../../git/commits.ts';
import { type CiVariable, jobVariables, pipelineVariables, storedVar } from '../../ci/variables.ts';
import { pipelineMergeRequests, predefinedProjectVariables, variablesForEnvironment, variablesForProject } from '../pipelines/index.ts';
import { pipelineWebUrl } from '../pipelines/pipelines.presenter.ts';
import { scheduleJobVariables } from '../pipeline-schedules/pipeline-schedules.finder.ts';
import { artifactsFor } from './job-artifacts-spec.ts';
import { type Dependency, dependencyVariables } from './job-dependencies.ts';

const FAILURE_REASONS = [
  'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure', 'missing_dependency_failure',
  'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure', 'unmet_prerequisites', 'scheduler_failure',
  'data_integrity_failure', 'forward_deployment_failure', 'user_blocked', 'project_deleted', 'ci_quota_exceeded', 'pipeline_loop_detected',
  'no_matching_runner', 'trace_size_exceeded', 'builds_disabled', 'environment_creation_failure', 'deployment_rejected',
];

interface JobOptions {
  script?: string[];
  before_script?: string[];
  after_script?: string[];
  image?: { name: string; entrypoint?: string[]; ports?: unknown[] } | null;
  services?: { name: string; entrypoint?: string[]; ports?: unknown[]; alias?: string; command?: string[]; variables?: unknown[] }[];
  artifacts?: Record<string, unknown> | null;
  cache?: Record<string, unknown>[] | null;
}

export const jobWebUrl = (projectWebUrl: string, id: number) => `${projectWebUrl}/-/jobs/${id}`;

/** The clone URL with the job token as the password of `gitlab-ci-token`. */
function repoUrl(externalUrl: string, project: ProjectRow, token: string): string {
  const url = new URL(`${externalUrl.replace(/\/+$/, '')}/${project.full_path}.git`);
  url.username = 'gitlab-ci-token';
  url.password = token;
  return url.toString();
}

/** The job's own steps: before_script + script, then after_script when there is one. */
function steps(options: JobOptions, timeout: number) {
  const list: Record<string, unknown>[] = [
    { name: 'script', script: [...(options.before_script ?? []), ...(options.script ?? [])], timeout, when: 'on_success', allow_failure: false },
  ];
  if (options.after_script && options.after_script.length > 0) list.push({ name: 'after_script', script: options.after_script, timeout, when: 'always', allow_failure: true });
  return list;
}

function image(options: JobOptions) {
  if (!options.image) return null;
  return { name: options.image.name, entrypoint: options.image.entrypoint ?? null, ports: options.image.ports ?? [] };
}

function services(options: JobOptions) {
  return (options.services ?? []).map((s) => ({
    name: s.name,
    entrypoint: s.entrypoint ?? null,
    ports: s.ports ?? [],
    alias: s.alias ?? null,
    command: s.command ?? null,
    variables: s.variables ?? [],
  }));
}

function cache(options: JobOptions) {
  return (options.cache ?? []).map((c) => ({
    key: c.key ?? 'default',
    untracked: c.untracked ?? false,
    paths: c.paths ?? [],
    policy: c.policy ?? 'pull-push',
    when: c.when ?? 'on_success',
    fallback_keys: c.fallback_keys ?? [],
  }));
}

/** The dependencies as the runner gets them: an archive to download unless it expired (and the pipeline does not keep it). */
async function dependencies(ctx: ServiceContext, deps: readonly Dependency[], token: string, pipelineLocked: boolean) {
  if (deps.length === 0) return [];
  const archives = await ctx.db
    .selectFrom('ci_job_artifacts')
    .select(['build_id', 'filename', 'size', 'expire_at'])
    .where('build_id', 'in', deps.map((j) => j.id))
    .where('file_type', '=', 'archive')
    .execute();
  const now = ctx.now().toISOString();
  const byBuild = new Map(archives.filter((a) => pipelineLocked || !a.expire_at || a.expire_at > now).map((a) => [a.build_id, a]));
  return deps.map((j) => {
    const archive = byBuild.get(j.id);
    // The running job's own token, which the runner's artifacts download accepts for a job of the
    // same pipeline (14.x handed out the dependency's token; newer releases do this).
    const dep: Record<string, unknown> = { id: j.id, name: j.name, token };
    if (archive) dep.artifacts_file = { filename: archive.filename, size: Number(archive.size) };
    return dep;
  });
}

export interface PayloadParts {
  build: CiBuildRow;
  token: string;
  pipeline: CiPipelineRow;
  project: ProjectRow;
  namespace: NamespaceRow;
  user: UserRow | null;
  /** The jobs whose artifacts and dotenv variables this one receives. */
  dependencies: readonly Dependency[];
}

/** The variables the runner receives for this job, in the platform's order. */
export async function runnerVariables(ctx: ServiceContext, parts: PayloadParts): Promise<CiVariable[]> {
  const { build, pipeline, project, namespace, user, token } = parts;
  const webUrl = projectWebUrl(ctx.config.externalUrl, project);
  const dir = repositoryDir(ctx.config, project);
  const commit = dir === null ? null : await getCommit(dir, pipeline.sha);
  const box = secretBox(ctx.config.dataDir);
  const scoped = await variablesForProject(ctx.db, box, { id: project.id, namespaceTraversal: namespace.type === 'Group' ? ancestorIds(namespace.traversal_path) : [] }, pipeline.protected);
  const pipelineVars = await ctx.db.selectFrom('ci_pipeline_variables').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('id').execute();
  const yaml = JSON.parse(build.yaml_variables) as { key: string; value: string; public?: boolean }[];
  const mergeRequests = await pipelineMergeRequests(ctx.db, ctx.config, project, { ref: pipeline.ref, tag: pipeline.tag, mergeRequestId: pipeline.merge_request_id });
  return [
    ...jobVariables({
      id: build.id,
      name: build.name,
      stage: build.stage,
      token,
      url: jobWebUrl(webUrl, build.id),
      startedAt: build.started_at,
      manual: build.when === 'manual',
      pipelineId: pipeline.id,
      pipelineUrl: pipelineWebUrl(webUrl, pipeline.id),
      repositoryUrl: repoUrl(ctx.config.externalUrl, project, token),
      triggered: pipeline.trigger_id !== null,
    }),
    ...predefinedProjectVariables(ctx.config, project, namespace, pipeline.config_path ?? '.gitlab-ci.yml'),
    ...publicVarsOf(pipeline, commit, user),
    ...yaml.map((v) => ({ key: v.key, value: v.value, public: v.public ?? true, masked: false })),
    ...(await dependencyVariables(ctx.db, box, parts.dependencies)),
    ...variablesForEnvironment(scoped, build.environment),
    ...pipelineVars.map((v) => storedVar({ key: v.key, value: box.open(v.value_encrypted), variable_type: v.variable_type })),
    ...(await scheduleJobVariables(ctx.db, box, pipeline.schedule_id)),
  ];

  function publicVarsOf(p: CiPipelineRow, c: Awaited<ReturnType<typeof getCommit>>, u: UserRow | null): CiVariable[] {
    return pipelineVariables(
      { id: p.id, iid: p.iid, source: p.source, ref: p.ref, refType: p.tag ? 'tag' : 'branch', refProtected: p.protected, createdAt: p.created_at, url: null, triggered: p.trigger_id !== null, ...mergeRequests },
      { sha: p.sha, beforeSha: p.before_sha, message: c?.message ?? '', timestamp: c?.committer.date ?? p.created_at, author: c ? `${c.author.name} <${c.author.email}>` : '' },
      u ? { id: u.id, username: u.username, name: u.name, email: u.email } : null,
    );
  }
}

/** The whole answer of a job request. */
export async function jobPayload(ctx: ServiceContext, parts: PayloadParts) {
  const { build, token, pipeline, project } = parts;
  const options = JSON.parse(build.options) as JobOptions;
  const [settings] = (await loadProjectSettings(ctx.db, [project])).values();
  const variables = await runnerVariables(ctx, parts);
  const gitDepthVar = variables.findLast((v) => v.key === 'GIT_DEPTH');
  const depth = gitDepthVar ? Number.parseInt(gitDepthVar.value, 10) || 0 : (settings?.ciCd.ci_default_git_depth ?? 0);
  const refType = pipeline.tag ? 'tag' : 'branch';
  const refspecs = [`+refs/pipelines/${pipeline.id}:refs/pipelines/${pipeline.id}`];
  // A shallow clone of a merge request pipeline fetches its persistent ref only (it has no branch).
  if (depth > 0 && pipeline.merge_request_id === null) refspecs.push(refType === 'tag' ? `+refs/tags/${pipeline.ref}:refs/tags/${pipeline.ref}` : `+refs/heads/${pipeline.ref}:refs/remotes/origin/${pipeline.ref}`);
  else if (depth === 0) refspecs.push('+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*');
  const timeout = build.timeout ?? 3600;
  return {
    id: build.id,
    token,
    allow_git_fetch: (settings?.ciCd.build_git_strategy ?? 'fetch') === 'fetch',
    job_info: { id: build.id, name: build.name, stage: build.stage, project_id: project.id, project_name: project.name },
    git_info: { repo_url: repoUrl(ctx.config.externalUrl, project, token), ref: pipeline.ref, sha: pipeline.sha, before_sha: pipeline.before_sha, ref_type: refType, refspecs, depth },
    runner_info: { timeout, runner_session_url: null },
    variables: variables.map((v) => ({ key: v.key, value: v.value, public: v.public, masked: v.masked, ...(v.file ? { file: true } : {}), ...(v.raw ? { raw: true } : {}) })),
    steps: steps(options, timeout),
    image: image(options),
    services: services(options),
    artifacts: artifactsFor(options.artifacts ?? null),
    cache: cache(options),
    credentials: [],
    features: { trace_sections: true, failure_reasons: FAILURE_REASONS },
    dependencies: await dependencies(ctx, parts.dependencies, token, pipeline.locked),
  };
}
