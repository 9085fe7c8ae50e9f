// Pipeline triggers (14.x lib/api/ci/triggers.rb): maintainers list, create, rename and delete a
// project's tokens (renaming is for the token's owner); anyone holding a token runs a pipeline with
// `POST /projects/:id/trigger/pipeline` or `POST /projects/:id/ref/:ref/trigger/pipeline?token=`.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { findProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, notFound, paramError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiTriggerRow } from '../../db/schema.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { loadCi } from '../pipelines/index.ts';
import { processPipelineNow } from '../pipelines/pipeline-processing.jobs.ts';
import { pipelineDetailParts } from '../pipelines/pipelines.finder.ts';
import { presentPipeline } from '../pipelines/pipelines.presenter.ts';
import { PipelineEntity } from '../pipelines/pipelines.schemas.ts';
import { findTrigger, findTriggers, triggerOwners } from './ci-triggers.finder.ts';
import { presentTrigger, tokenShownTo } from './ci-triggers.presenter.ts';
import { CreateTriggerBody, ListQuery, ProjectParams, RefParams, TriggerEntity, TriggerParams, TriggerPipelineBody, TriggerRefPipelineBody, UpdateTriggerBody } from './ci-triggers.schemas.ts';
import { createTrigger, deleteTrigger, triggerPipeline, updateTrigger } from './ci-triggers.service.ts';

const REQUIRED = { auth: 'required' } as const;
/** The trigger request authenticates with its token alone, whoever sends it. */
const BY_TOKEN = { auth: 'none' } as const;

/** The parameters of a trigger request that the platform keeps out of TRIGGER_PAYLOAD. */
const HIDDEN = new Set(['token']);

export const ciTriggerRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const box = secretBox(config.dataDir);
  const manage = { config: REQUIRED, preHandler: loadCi('admin_build') };

  async function present(req: FastifyRequest, rows: CiTriggerRow[]) {
    const owners = await triggerOwners(db, rows);
    const viewer = req.actor?.user.id ?? null;
    return rows.map((r) => presentTrigger(r, box.open(r.token_encrypted), owners.get(r.owner_id ?? 0) ?? null, viewer, config.externalUrl));
  }

  async function requireTrigger(req: FastifyRequest, id: number): Promise<CiTriggerRow> {
    const row = await findTrigger(db, loadedProject(req).row.id, id);
    // A record lookup that fails: the platform's generic "404 Not found".
    if (!row) throw apiError(404, '404 Not found');
    return row;
  }

  api.get('/projects/:id/triggers', { schema: { params: ProjectParams, querystring: ListQuery, response: { 200: Type.Array(TriggerEntity) } }, ...manage }, async (req, reply) =>
    present(req, await paginate(req, reply, findTriggers(db, loadedProject(req).row.id))),
  );

  api.get('/projects/:id/triggers/:trigger_id', { schema: { params: TriggerParams, response: { 200: TriggerEntity } }, ...manage }, async (req) =>
    (await present(req, [await requireTrigger(req, req.params.trigger_id)]))[0],
  );

  api.post('/projects/:id/triggers', { schema: { params: ProjectParams, body: CreateTriggerBody, response: { 201: TriggerEntity } }, ...manage }, async (req, reply) => {
    const { row } = await createTrigger(serviceContext(req), loadedProject(req).row, req.actor!.user, req.body.description);
    reply.code(201);
    return (await present(req, [row]))[0];
  });

  api.put('/projects/:id/triggers/:trigger_id', { schema: { params: TriggerParams, body: UpdateTriggerBody, response: { 200: TriggerEntity } }, ...manage }, async (req) => {
    const row = await requireTrigger(req, req.params.trigger_id);
    // admin_trigger: the trigger's owner only.
    if (!tokenShownTo(row, req.actor?.user.id ?? null)) throw forbidden();
    return (await present(req, [await updateTrigger(serviceContext(req), row, req.body.description)]))[0];
  });

  api.delete('/projects/:id/triggers/:trigger_id', { schema: { params: TriggerParams, response: { 204: NoContent } }, ...manage }, async (req, reply) => {
    await deleteTrigger(serviceContext(req), await requireTrigger(req, req.params.trigger_id));
    return reply.code(204).send();
  });

  async function run(req: FastifyRequest, projectParam: string, ref: string, token: string) {
    // A pipeline's own webhook pointed at this URL would loop.
    if (req.headers['x-gitlab-event'] === 'Pipeline Hook') throw forbidden();
    const raw = req.rawParams.variables ?? {};
    if (typeof raw !== 'object' || Array.isArray(raw)) throw paramError('variables is invalid');
    const variables = raw as Record<string, unknown>;
    if (!Object.values(variables).every((v) => typeof v === 'string')) throw apiError(400, 'variables needs to be a map of key-valued strings');
    const found = await findProject(req, projectParam);
    if (!found) throw notFound();
    const payload: Record<string, unknown> = Object.fromEntries(Object.entries(req.rawParams).filter(([key]) => !HIDDEN.has(key)));
    payload.variables = variables;
    Object.assign(payload, { id: projectParam, ref });
    const ctx = serviceContext(req);
    const created = await triggerPipeline(ctx, { project: found.row, token, ref, variables: variables as Record<string, string>, payload });
    const processed = (await processPipelineNow(ctx, created.id)) ?? created;
    const view = { baseUrl: config.externalUrl, projectWebUrl: projectWebUrl(config.externalUrl, found.row), projectFullPath: found.row.full_path };
    return presentPipeline(processed, view, await pipelineDetailParts(db, processed));
  }

  api.post('/projects/:id/trigger/pipeline', { schema: { params: ProjectParams, body: TriggerPipelineBody, response: { 201: PipelineEntity } }, config: BY_TOKEN }, async (req, reply) => {
    const pipeline = await run(req, req.params.id, req.body.ref, req.body.token);
    reply.code(201);
    return pipeline;
  });

  api.post('/projects/:id/ref/:ref/trigger/pipeline', { schema: { params: RefParams, body: TriggerRefPipelineBody, response: { 201: PipelineEntity } }, config: BY_TOKEN }, async (req, reply) => {
    const pipeline = await run(req, req.params.id, req.params.ref, req.body.token);
    reply.code(201);
    return pipeline;
  });
};
