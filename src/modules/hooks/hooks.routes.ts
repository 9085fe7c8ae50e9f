// Webhooks: a project's (/projects/:id/hooks, for those who administer the project: maintainers
// and owners), a group's (/groups/:id/hooks, for its owners) and the instance's (/hooks, for
// administrators). A hook the owner does not have is the record-not-found 404. Each hook's
// deliveries are listed (`events`, newest first) and may be sent again; a project hook may be
// tested with a trigger's sample, a system hook with the platform's sample.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin } from '../../core/access/guards.ts';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { requireActor, serviceContext } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { WebHookRow } from '../../db/schema.ts';
import { findHookEvent, findOwnedHook, hookEvents, type HookOwner, ownedHooks } from './hooks.finder.ts';
import { presentGroupHook, presentHookEvent, presentProjectHook, presentSystemHook } from './hooks.presenter.ts';
import {
  type GroupHook,
  GroupHookBody,
  GroupHookEntity,
  HookEventEntity,
  HookEventParams,
  ListEventsQuery,
  ListHooksQuery,
  MessageEntity,
  type ProjectHook,
  ProjectHookBody,
  ProjectHookEntity,
  ProjectHookParams,
  ProjectParams,
  ResendEntity,
  SystemHookBody,
  SystemHookEntity,
  SystemHookParams,
  SystemHookTestEntity,
  TestHookParams,
} from './hooks.schemas.ts';
import { createHook, deleteHook, resendHookEvent, sendNow, updateHook } from './hooks.service.ts';
import { NoSample, sampleFor } from './samples.ts';

const SIGNED_IN = { auth: 'required' } as const;

/** The platform's record-not-found answer (lower-case "found"). */
const missing = () => apiError(404, '404 Not found');

/** The sample a system hook's test sends and answers (API::SystemHooks). */
const SYSTEM_HOOK_SAMPLE = { event_name: 'project_create', name: 'Ruby', path: 'ruby', project_id: 1, owner_name: 'Someone', owner_email: 'example@gitlabhq.com' };

export const hookRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;
  const maintainers = loadProject('admin_project');
  const owners = loadGroup('admin_group');
  const projectOwner = (req: FastifyRequest): HookOwner => ({ type: 'ProjectHook', projectId: loadedProject(req).row.id });
  const groupOwner = (req: FastifyRequest): HookOwner => ({ type: 'GroupHook', groupId: loadedGroup(req).row.id });

  async function requireHook(owner: HookOwner, id: number): Promise<WebHookRow> {
    const hook = await findOwnedHook(db, owner, id);
    if (!hook) throw missing();
    return hook;
  }

  /** The routes a project's and a group's hooks share. */
  function scopedRoutes(
    base: '/projects/:id/hooks' | '/groups/:id/hooks',
    ownerOf: (req: FastifyRequest) => HookOwner,
    preHandler: ReturnType<typeof loadProject>,
    entity: typeof ProjectHookEntity | typeof GroupHookEntity,
    body: typeof ProjectHookBody | typeof GroupHookBody,
    present: (row: WebHookRow) => ProjectHook | GroupHook,
  ) {
    api.get(base, { schema: { params: ProjectParams, querystring: ListHooksQuery, response: { 200: Type.Array(entity) } }, config: SIGNED_IN, preHandler }, async (req, reply) =>
      (await paginate(req, reply, ownedHooks(db, ownerOf(req)))).map(present),
    );
    api.get(`${base}/:hook_id`, { schema: { params: ProjectHookParams, response: { 200: entity } }, config: SIGNED_IN, preHandler }, async (req) =>
      present(await requireHook(ownerOf(req), req.params.hook_id)),
    );
    api.post(base, { schema: { params: ProjectParams, body, response: { 201: entity } }, config: SIGNED_IN, preHandler }, async (req, reply) =>
      reply.code(201).send(present(await createHook(serviceContext(req), ownerOf(req), req.body))),
    );
    api.put(`${base}/:hook_id`, { schema: { params: ProjectHookParams, body, response: { 200: entity } }, config: SIGNED_IN, preHandler }, async (req) => {
      const owner = ownerOf(req);
      return present(await updateHook(serviceContext(req), owner, await requireHook(owner, req.params.hook_id), req.body));
    });
    api.delete(`${base}/:hook_id`, { schema: { params: ProjectHookParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler }, async (req, reply) => {
      await deleteHook(serviceContext(req), await requireHook(ownerOf(req), req.params.hook_id));
      return reply.code(204).send();
    });
    api.get(
      `${base}/:hook_id/events`,
      { schema: { params: ProjectHookParams, querystring: ListEventsQuery, response: { 200: Type.Array(HookEventEntity) } }, config: SIGNED_IN, preHandler },
      async (req, reply) => {
        const hook = await requireHook(ownerOf(req), req.params.hook_id);
        return (await paginate(req, reply, hookEvents(db, hook.id, req.query.status))).map(presentHookEvent);
      },
    );
    api.post(
      `${base}/:hook_id/events/:hook_log_id/resend`,
      { schema: { params: HookEventParams, response: { 201: ResendEntity } }, config: SIGNED_IN, preHandler },
      async (req, reply) => resend(req, reply, await requireHook(ownerOf(req), req.params.hook_id), req.params.hook_log_id),
    );
  }

  async function resend(req: FastifyRequest, reply: FastifyReply, hook: WebHookRow, logId: number) {
    const log = await findHookEvent(db, hook.id, logId);
    if (!log) throw missing();
    const delivery = await resendHookEvent(serviceContext(req), hook, log);
    return reply.code(201).send({ response_status: delivery.status ?? delivery.log.response_status });
  }

  scopedRoutes('/projects/:id/hooks', projectOwner, maintainers, ProjectHookEntity, ProjectHookBody, presentProjectHook);
  scopedRoutes('/groups/:id/hooks', groupOwner, owners, GroupHookEntity, GroupHookBody, presentGroupHook);

  api.post(
    '/projects/:id/hooks/:hook_id/test/:trigger',
    { schema: { params: TestHookParams, response: { 201: MessageEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const { row } = loadedProject(req);
      const hook = await requireHook(projectOwner(req), req.params.hook_id);
      const ctx = serviceContext(req);
      let sample;
      try {
        sample = await sampleFor(db, ctx.config, row, requireActor(ctx).user.id, req.params.trigger);
      } catch (error) {
        if (error instanceof NoSample) throw apiError(422, error.message);
        throw error;
      }
      const delivery = await sendNow(ctx, hook, sample.trigger, sample.data);
      if (delivery.status === null || delivery.status < 200 || delivery.status > 299) throw apiError(422, delivery.log.internal_error_message ?? (delivery.log.response_body || `${delivery.status}`));
      return reply.code(201).send({ message: '201 Created' });
    },
  );

  // ---- System hooks -------------------------------------------------------------------------------

  const SYSTEM: HookOwner = { type: 'SystemHook' };

  api.get('/hooks', { schema: { querystring: ListHooksQuery, response: { 200: Type.Array(SystemHookEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    return (await paginate(req, reply, ownedHooks(db, SYSTEM))).map(presentSystemHook);
  });

  api.get('/hooks/:id', { schema: { params: SystemHookParams, response: { 200: SystemHookEntity } }, config: SIGNED_IN }, async (req) => {
    requireAdmin(req);
    return presentSystemHook(await requireHook(SYSTEM, req.params.id));
  });

  api.post('/hooks', { schema: { body: SystemHookBody, response: { 201: SystemHookEntity } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    return reply.code(201).send(presentSystemHook(await createHook(serviceContext(req), SYSTEM, req.body)));
  });

  api.post('/hooks/:id', { schema: { params: SystemHookParams, response: { 201: SystemHookTestEntity } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const hook = await requireHook(SYSTEM, req.params.id);
    await sendNow(serviceContext(req), hook, 'system_hooks', SYSTEM_HOOK_SAMPLE);
    return reply.code(201).send(SYSTEM_HOOK_SAMPLE);
  });

  api.delete('/hooks/:id', { schema: { params: SystemHookParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    await deleteHook(serviceContext(req), await requireHook(SYSTEM, req.params.id));
    return reply.code(204).send();
  });

  api.get(
    '/hooks/:id/events',
    { schema: { params: SystemHookParams, querystring: ListEventsQuery, response: { 200: Type.Array(HookEventEntity) } }, config: SIGNED_IN },
    async (req, reply) => {
      requireAdmin(req);
      const hook = await requireHook(SYSTEM, req.params.id);
      return (await paginate(req, reply, hookEvents(db, hook.id, req.query.status))).map(presentHookEvent);
    },
  );

  api.post(
    '/hooks/:id/events/:hook_log_id/resend',
    { schema: { params: Type.Object({ id: Type.Integer(), hook_log_id: Type.Integer() }, { additionalProperties: false }), response: { 201: ResendEntity } }, config: SIGNED_IN },
    async (req, reply) => {
      requireAdmin(req);
      return resend(req, reply, await requireHook(SYSTEM, req.params.id), req.params.hook_log_id);
    },
  );
};
