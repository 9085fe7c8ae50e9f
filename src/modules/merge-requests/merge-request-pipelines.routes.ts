// A merge request's pipelines (14.x lib/api/merge_requests.rb): GET lists its merge request
// pipelines and its source branch's pipelines for its commits, newest first, to those who may read
// the project's pipelines; POST makes a merge request pipeline now (200, as 14.x answers; 405 for a
// merge request without commits; 400 with the reason when no pipeline could be made).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, methodNotAllowed } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { readProjectSettings } from '../../domain/settings/project-settings.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { logCommitIds } from '../../git/history.ts';
import { ciAbilities } from '../pipelines/index.ts';
import { mergeRequestPipelines, pipelineDetailParts } from '../pipelines/pipelines.finder.ts';
import { presentPipeline, presentPipelineBasic } from '../pipelines/pipelines.presenter.ts';
import { PipelineBasicEntity, PipelineEntity } from '../pipelines/pipelines.schemas.ts';
import { processPipelineNow } from '../pipelines/pipeline-processing.jobs.ts';
import { requireCreated } from '../pipelines/pipelines.service.ts';
import { findMergeRequestByIid } from './merge-requests.finder.ts';
import { mergeRequestAccess } from './merge-requests.routes.ts';
import { MergeRequestParams, PipelinesQuery } from './merge-requests.schemas.ts';
import { createMergeRequestPipeline } from './merge-request-pipelines.ts';

/** The platform keeps this many commits of a merge request's diff (MergeRequestDiff::COMMITS_SAFE_SIZE). */
const MAX_COMMITS = 1000;

export const mergeRequestPipelineRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const route = '/projects/:id/merge_requests/:merge_request_iid/pipelines';

  async function requireMergeRequest(req: FastifyRequest, iid: number) {
    const project = loadedProject(req);
    const mr = (await mergeRequestAccess(req, project)).read ? await findMergeRequestByIid(db, project.row.id, iid) : undefined;
    if (!mr) throw apiError(404, '404 Not found');
    return mr;
  }

  const view = (req: FastifyRequest) => {
    const { row } = loadedProject(req);
    return { baseUrl: config.externalUrl, projectWebUrl: projectWebUrl(config.externalUrl, row), projectFullPath: row.full_path };
  };

  api.get(route, { schema: { params: MergeRequestParams, querystring: PipelinesQuery, response: { 200: Type.Array(PipelineBasicEntity) } }, config: { auth: 'optional' }, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    if (!ciAbilities(req.actor, project, await readProjectSettings(db, project.row)).has('read_pipeline')) throw forbidden();
    const mr = await requireMergeRequest(req, req.params.merge_request_iid);
    const dir = repositoryDir(config, project.row);
    const range = mr.head_sha === null ? [] : mr.base_sha === null ? [mr.head_sha] : [mr.head_sha, `^${mr.base_sha}`];
    const shas = dir === null || range.length === 0 ? [] : await logCommitIds(dir, { revisions: range }, { skip: 0, limit: MAX_COMMITS });
    const rows = await paginate(req, reply, mergeRequestPipelines(db, mr, [...new Set([...shas, ...(mr.sha ? [mr.sha] : [])])]));
    return rows.map((row) => presentPipelineBasic(row, view(req)));
  });

  api.post(route, { schema: { params: MergeRequestParams, response: { 200: PipelineEntity } }, config: { auth: 'required' }, preHandler: loadProject('read_project') }, async (req) => {
    const project = loadedProject(req);
    const mr = await requireMergeRequest(req, req.params.merge_request_iid);
    const ctx = serviceContext(req);
    const result = await createMergeRequestPipeline(ctx, project.row, mr, req.actor!.user, { allowDuplicate: true });
    if ('notAllowed' in result || 'duplicate' in result) throw methodNotAllowed();
    // Processed at once, as the other API-made pipelines: it answers pending with its jobs queued.
    const created = requireCreated(result);
    const pipeline = (await processPipelineNow(ctx, created.id)) ?? created;
    return presentPipeline(pipeline, view(req), await pipelineDetailParts(db, pipeline));
  });
};
