// Jobs of a project (spec part 1 §4.1, and what every client also uses): lists of the project and
// of a pipeline, bridges, one job, its log, cancel, retry, play, erase, keeping its artifacts; and
// GET /job and /job/allowed_agents for a job token.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { ancestorIds, projectAccessLevel } from '../../core/access/authorizations.ts';
import { requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, notFound, unauthorized } from '../../core/errors.ts';
import { cappedCount, paginate } from '../../core/pagination.ts';
import type { CiBuildRow, ProjectRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { artifactsStorage } from '../../storage/file-storage.ts';
import { type Commit, getCommit } from '../../git/commits.ts';
import { findArtifact } from '../ci-artifacts/artifacts.finder.ts';
import { eraseJob, isErasable, keepArtifacts } from '../ci-artifacts/artifacts.service.ts';
import { loadCi } from '../pipelines/index.ts';
import { cancelJob, playJob, retryJob } from '../pipelines/pipelines.service.ts';
import { projectCount } from '../pipelines/pipelines.finder.ts';
import { findJob, findJobs, findRunnerJobs, jobRelations } from './ci-jobs.finder.ts';
import { type JobView, presentAllowedAgents, presentBridge, presentJob, presentJobBasicWithProject } from './ci-jobs.presenter.ts';
import {
  AllowedAgentsEntity,
  BridgeEntity,
  JobBasicWithProjectEntity,
  JobEntity,
  JobParams,
  ListJobsQuery,
  ListPipelineJobsQuery,
  PipelineJobsParams,
  ProjectParams,
  RunnerJobsParams,
  RunnerJobsQuery,
} from './ci-jobs.schemas.ts';
import { findRunner, ownsRunner } from '../runners/runners.finder.ts';
import { readTrace } from './trace-archive.ts';

const OPTIONAL = { auth: 'optional' } as const;
/** Writes need a signed-in caller: anonymous ones are told 401 (the platform's authenticate_non_get!). */
const REQUIRED = { auth: 'required' } as const;

export const ciJobRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  async function view(req: FastifyRequest, project: ProjectRow, rows: readonly CiBuildRow[]): Promise<JobView> {
    const relations = await jobRelations(db, rows);
    const dir = repositoryDir(config, project);
    const commits = new Map<string, Commit>();
    for (const sha of new Set([...relations.pipelines.values()].filter((p) => p.project_id === project.id).map((p) => p.sha))) {
      const commit = dir === null ? null : await getCommit(dir, sha);
      if (commit) commits.set(sha, commit);
    }
    const viewer = req.actor ? { id: req.actor.user.id, isAdmin: req.actor.isAdmin } : null;
    return { baseUrl: config.externalUrl, projectWebUrl: projectWebUrl(config.externalUrl, project), projectFullPath: project.full_path, viewer, relations, commits, now: new Date() };
  }

  async function showJob(req: FastifyRequest, row: CiBuildRow) {
    const project = loadedProject(req).row;
    return presentJob(row, await view(req, project, [row]));
  }

  async function requireJob(req: FastifyRequest, id: number): Promise<CiBuildRow> {
    const row = await findJob(db, loadedProject(req).row.id, id);
    if (!row) throw notFound();
    return row;
  }

  api.get(
    '/projects/:id/jobs',
    { schema: { params: ProjectParams, querystring: ListJobsQuery, response: { 200: Type.Array(JobEntity) } }, config: OPTIONAL, preHandler: loadCi('read_build') },
    async (req, reply) => {
      const project = loadedProject(req).row;
      const jobs = findJobs(db, { projectId: project.id }, { scope: req.query.scope, type: 'build' });
      // The project's counter, or the scoped rows up to the 10,001 that tell a total not shown.
      const count = projectCount(db, project.id, 'jobs', req.query) ?? [cappedCount(db, jobs)];
      const rows = await paginate(req, reply, jobs, { countParts: count });
      const shown = await view(req, project, rows);
      return rows.map((r) => presentJob(r, shown));
    },
  );

  api.get(
    '/projects/:id/pipelines/:pipeline_id/jobs',
    { schema: { params: PipelineJobsParams, querystring: ListPipelineJobsQuery, response: { 200: Type.Array(JobEntity) } }, config: OPTIONAL, preHandler: loadCi('read_build') },
    async (req, reply) => {
      const project = loadedProject(req).row;
      const pipeline = await db.selectFrom('ci_pipelines').select('id').where('id', '=', req.params.pipeline_id).where('project_id', '=', project.id).executeTakeFirst();
      if (!pipeline) throw notFound();
      const filters = { scope: req.query.scope, includeRetried: req.query.include_retried, type: 'build' as const };
      const rows = await paginate(req, reply, findJobs(db, { projectId: project.id, pipelineId: pipeline.id }, filters));
      const shown = await view(req, project, rows);
      return rows.map((r) => presentJob(r, shown));
    },
  );

  api.get(
    '/projects/:id/pipelines/:pipeline_id/bridges',
    { schema: { params: PipelineJobsParams, querystring: ListJobsQuery, response: { 200: Type.Array(BridgeEntity) } }, config: OPTIONAL, preHandler: loadCi('read_build') },
    async (req, reply) => {
      const project = loadedProject(req).row;
      const pipeline = await db.selectFrom('ci_pipelines').select('id').where('id', '=', req.params.pipeline_id).where('project_id', '=', project.id).executeTakeFirst();
      if (!pipeline) throw notFound();
      const rows = await paginate(req, reply, findJobs(db, { projectId: project.id, pipelineId: pipeline.id }, { scope: req.query.scope, type: 'bridge' }));
      const shown = await view(req, project, rows);
      return rows.map((r) => presentBridge(r, shown));
    },
  );

  api.get(
    '/projects/:id/jobs/:job_id',
    { schema: { params: JobParams, response: { 200: JobEntity } }, config: OPTIONAL, preHandler: loadCi('read_build') },
    async (req) => showJob(req, await requireJob(req, req.params.job_id)),
  );

  api.get(
    '/projects/:id/jobs/:job_id/trace',
    { schema: { params: JobParams }, config: { auth: 'optional', json: false }, preHandler: loadCi('read_build') },
    async (req, reply) => {
      const job = await requireJob(req, req.params.job_id);
      reply.type('text/plain; charset=utf-8');
      if (job.erased_at !== null) return reply.send('');
      // Streamed: a long log is never held whole.
      return reply.send(Readable.from(readTrace(db, artifactsStorage(api.deps.config), job.id)));
    },
  );

  api.post(
    '/projects/:id/jobs/:job_id/cancel',
    { schema: { params: JobParams, response: { 201: JobEntity } }, config: REQUIRED, preHandler: loadCi('update_build') },
    async (req, reply) => {
      const job = await requireJob(req, req.params.job_id);
      const canceled = (await cancelJob(serviceContext(req), job)) ?? job;
      reply.code(201);
      return showJob(req, canceled);
    },
  );

  api.post(
    '/projects/:id/jobs/:job_id/retry',
    { schema: { params: JobParams, response: { 201: JobEntity } }, config: REQUIRED, preHandler: loadCi('update_build') },
    async (req, reply) => {
      const job = await requireJob(req, req.params.job_id);
      const retried = await retryJob(serviceContext(req), job, req.actor?.user.id ?? null);
      if (!retried) throw forbidden('Job is not retryable');
      reply.code(201);
      return showJob(req, retried);
    },
  );

  api.post(
    '/projects/:id/jobs/:job_id/play',
    { schema: { params: JobParams, response: { 200: JobEntity } }, config: REQUIRED, preHandler: loadCi('update_build') },
    async (req) => {
      const job = await requireJob(req, req.params.job_id);
      const played = await playJob(serviceContext(req), job, req.actor?.user.id ?? null);
      if (!played) throw apiError(400, '400 Bad request - Unplayable Job');
      return showJob(req, played);
    },
  );

  api.post(
    '/projects/:id/jobs/:job_id/erase',
    { schema: { params: JobParams, response: { 201: JobEntity } }, config: { auth: 'required' }, preHandler: loadCi('update_build') },
    async (req, reply) => {
      const job = await requireJob(req, req.params.job_id);
      if (!(await isErasable(serviceContext(req), job))) throw forbidden('Job is not erasable!');
      const erased = await eraseJob(serviceContext(req), job, req.actor?.user.id ?? null);
      reply.code(201);
      return showJob(req, erased);
    },
  );

  api.post(
    '/projects/:id/jobs/:job_id/artifacts/keep',
    { schema: { params: JobParams, response: { 200: JobEntity } }, config: { auth: 'required' }, preHandler: loadCi('update_build') },
    async (req) => {
      const job = await requireJob(req, req.params.job_id);
      // `artifacts?`: an archive that has not expired.
      if (!(await findArtifact(db, job.id, 'archive', api.deps.now()))) throw notFound();
      return showJob(req, await keepArtifacts(serviceContext(req), job));
    },
  );

  /** The job of the job token that calls (notes gitlab-ci.md §5): 401 without credentials, 404 for other credentials. */
  async function currentJob(req: FastifyRequest): Promise<CiBuildRow> {
    if (!req.actor) throw unauthorized();
    if (req.actor.jobId === null) throw notFound('Job');
    const job = await db.selectFrom('ci_builds').selectAll().where('id', '=', req.actor.jobId).executeTakeFirst();
    if (!job) throw notFound('Job');
    return job;
  }

  api.get('/job', { schema: { response: { 200: JobEntity } }, config: { auth: 'optional', jobToken: true } }, async (req) => {
    const job = await currentJob(req);
    const project = await db.selectFrom('projects').selectAll().where('id', '=', job.project_id).executeTakeFirstOrThrow();
    return presentJob(job, await view(req, project, [job]));
  });

  // What a cluster agent asks of a job before it lets the job in (the platform's premium route).
  api.get('/job/allowed_agents', { schema: { response: { 200: AllowedAgentsEntity } }, config: { auth: 'optional', jobToken: true } }, async (req) => {
    const job = await currentJob(req);
    const user = requireUser(req).user;
    const namespace = await db
      .selectFrom('projects')
      .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .select(['namespaces.type', 'namespaces.traversal_path'])
      .where('projects.id', '=', job.project_id)
      .executeTakeFirstOrThrow();
    const groupIds = namespace.type === 'Group' ? ancestorIds(namespace.traversal_path) : [];
    const accessLevel = await projectAccessLevel(db, user.id, job.project_id);
    return presentAllowedAgents({ job, groupIds, user, accessLevel });
  });

  // The jobs a runner took (14.x `GET /runners/:id/jobs`): for administrators and the runner's owners.
  api.get(
    '/runners/:id/jobs',
    { schema: { params: RunnerJobsParams, querystring: RunnerJobsQuery, response: { 200: Type.Array(JobBasicWithProjectEntity) } }, config: { auth: 'required' } },
    async (req, reply) => {
      const actor = requireUser(req);
      const runner = await findRunner(db, req.params.id);
      if (!runner) throw notFound('Runner');
      if (!(await ownsRunner(db, actor, runner.id, api.deps.now()))) throw forbidden('No access granted');
      const rows = await paginate(req, reply, findRunnerJobs(db, runner.id, req.query));
      const projectIds = [...new Set(rows.map((r) => r.project_id))];
      const projects = projectIds.length ? await db.selectFrom('projects').selectAll().where('id', 'in', projectIds).execute() : [];
      const views = new Map<number, JobView>();
      for (const project of projects) views.set(project.id, await view(req, project, rows.filter((r) => r.project_id === project.id)));
      const byId = new Map(projects.map((p) => [p.id, p]));
      return rows.map((r) => presentJobBasicWithProject(r, views.get(r.project_id) as JobView, byId.get(r.project_id) as ProjectRow));
    },
  );
};
