// Pipelines (spec part 1 §4.2): list, latest, show, variables, create, retry, cancel, delete.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiPipelineRow } from '../../db/schema.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadCi } from './ci-loader.ts';
import { processPipelineNow } from './pipeline-processing.jobs.ts';
import { findPipeline, findPipelines, latestPipeline, pipelineDetailParts, pipelineVariables, pipelinesCount } from './pipelines.finder.ts';
import { type PipelineView, presentPipeline, presentPipelineBasic } from './pipelines.presenter.ts';
import {
  CreatePipelineBody,
  LatestPipelineQuery,
  ListPipelinesQuery,
  PipelineBasicEntity,
  PipelineEntity,
  PipelineParams,
  PipelineVariableEntity,
  ProjectParams,
} from './pipelines.schemas.ts';
import { cancelPipeline, createPipeline, deletePipeline, requireCreated, retryPipeline } from './pipelines.service.ts';

/** Public projects' pipelines are read anonymously when their jobs are public. */
const OPTIONAL = { auth: 'optional' } as const;
/** Writes need a signed-in caller: anonymous ones are told 401 (the platform's authenticate_non_get!). */
const REQUIRED = { auth: 'required' } as const;

export const pipelineRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  function view(req: FastifyRequest): PipelineView {
    const row = loadedProject(req).row;
    return { baseUrl: config.externalUrl, projectWebUrl: projectWebUrl(config.externalUrl, row), projectFullPath: row.full_path };
  }

  async function detail(req: FastifyRequest, row: CiPipelineRow) {
    return presentPipeline(row, view(req), await pipelineDetailParts(db, row));
  }

  async function requirePipeline(req: FastifyRequest, id: number): Promise<CiPipelineRow> {
    const row = await findPipeline(db, loadedProject(req).row.id, id);
    if (!row) throw notFound();
    return row;
  }

  api.get(
    '/projects/:id/pipelines',
    { schema: { params: ProjectParams, querystring: ListPipelinesQuery, response: { 200: Type.Array(PipelineBasicEntity) } }, config: OPTIONAL, preHandler: loadCi('read_pipeline') },
    async (req, reply) => {
      const projectId = loadedProject(req).row.id;
      const rows = await paginate(req, reply, findPipelines(db, projectId, req.query), { countParts: pipelinesCount(db, projectId, req.query) });
      const shown = view(req);
      return rows.map((r) => presentPipelineBasic(r, shown));
    },
  );

  api.get(
    '/projects/:id/pipelines/latest',
    { schema: { params: ProjectParams, querystring: LatestPipelineQuery, response: { 200: PipelineEntity } }, config: OPTIONAL, preHandler: loadCi('read_pipeline') },
    async (req) => {
      const project = loadedProject(req).row;
      const row = await latestPipeline(db, project.id, req.query.ref ?? project.default_branch ?? '');
      if (!row) throw notFound();
      return detail(req, row);
    },
  );

  api.get(
    '/projects/:id/pipelines/:pipeline_id',
    { schema: { params: PipelineParams, response: { 200: PipelineEntity } }, config: OPTIONAL, preHandler: loadCi('read_pipeline') },
    async (req) => detail(req, await requirePipeline(req, req.params.pipeline_id)),
  );

  api.get(
    '/projects/:id/pipelines/:pipeline_id/variables',
    { schema: { params: PipelineParams, response: { 200: Type.Array(PipelineVariableEntity) } }, config: OPTIONAL, preHandler: loadCi('update_pipeline') },
    async (req) => {
      const row = await requirePipeline(req, req.params.pipeline_id);
      return pipelineVariables(db, secretBox(config.dataDir), row.id);
    },
  );

  api.post(
    '/projects/:id/pipeline',
    { schema: { params: ProjectParams, body: CreatePipelineBody, response: { 201: PipelineEntity } }, config: REQUIRED, preHandler: loadCi('create_pipeline') },
    async (req, reply) => {
      const ctx = serviceContext(req);
      const project = loadedProject(req).row;
      const created = requireCreated(
        await createPipeline(ctx, { project, ref: req.body.ref, source: 'api', user: req.actor?.user ?? null, variables: req.body.variables, saveFailed: false }),
      );
      // The platform processes an API pipeline before answering: it is usually pending already.
      const processed = (await processPipelineNow(ctx, created.id)) ?? created;
      reply.code(201);
      return detail(req, processed);
    },
  );

  api.post(
    '/projects/:id/pipelines/:pipeline_id/cancel',
    { schema: { params: PipelineParams, response: { 200: PipelineEntity } }, config: REQUIRED, preHandler: loadCi('update_pipeline') },
    async (req) => detail(req, await cancelPipeline(serviceContext(req), await requirePipeline(req, req.params.pipeline_id))),
  );

  api.post(
    '/projects/:id/pipelines/:pipeline_id/retry',
    { schema: { params: PipelineParams, response: { 201: PipelineEntity } }, config: REQUIRED, preHandler: loadCi('update_pipeline') },
    async (req, reply) => {
      const pipeline = await retryPipeline(serviceContext(req), await requirePipeline(req, req.params.pipeline_id), req.actor?.user.id ?? null);
      reply.code(201);
      return detail(req, pipeline);
    },
  );

  api.delete(
    '/projects/:id/pipelines/:pipeline_id',
    { schema: { params: PipelineParams, response: { 204: NoContent } }, config: REQUIRED, preHandler: loadCi('destroy_pipeline') },
    async (req, reply) => {
      await deletePipeline(serviceContext(req), await requirePipeline(req, req.params.pipeline_id), loadedProject(req).row);
      return reply.code(204).send();
    },
  );
};
