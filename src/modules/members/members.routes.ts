// Group and project members: list (direct, or with those inherited from groups above), show, add,
// change, remove. Every route needs a signed-in user; the source must be readable (404 otherwise);
// adding and changing need admin_project_member / admin_group_member (403 otherwise); removing is
// for managers and for members leaving on their own.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { type MemberSource, findAllMembers, findDirectMember, findDirectMembers, findInheritedOrDirectMember, groupSource, projectSource } from './members.finder.ts';
import { presentMember } from './members.presenter.ts';
import {
  AddMemberBody,
  BulkResultEntity,
  ListMembersQuery,
  MemberEntity,
  MemberParams,
  RemoveMemberBody,
  SourceParams,
  UpdateMemberBody,
} from './members.schemas.ts';
import { addMember, addMembers, expiryDate, memberNotFound, removeMember, updateMember } from './members.service.ts';

const REQUIRED = { auth: 'required' } as const;

interface SourceKind {
  prefix: string;
  /** read_project_member / read_group_member. */
  read: preHandlerAsyncHookHandler;
  /** admin_project_member / admin_group_member. */
  manage: preHandlerAsyncHookHandler;
  source(req: FastifyRequest): MemberSource;
  canManage(req: FastifyRequest): boolean;
}

const KINDS: SourceKind[] = [
  {
    prefix: '/projects/:id',
    read: loadProject('read_project_member'),
    manage: loadProject('admin_project_member'),
    source: (req) => projectSource(loadedProject(req).row, loadedProject(req).namespace),
    canManage: (req) => loadedProject(req).can.has('admin_project_member'),
  },
  {
    prefix: '/groups/:id',
    read: loadGroup('read_group_member'),
    manage: loadGroup('admin_group_member'),
    source: (req) => groupSource(loadedGroup(req).row),
    canManage: (req) => loadedGroup(req).can.has('admin_group_member'),
  },
];

export const memberRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db } = deps;
  const baseUrl = deps.config.externalUrl;

  for (const kind of KINDS) {
    const { prefix } = kind;
    const list = { params: SourceParams, querystring: ListMembersQuery, response: { 200: Type.Array(MemberEntity) } };
    const one = { params: MemberParams, response: { 200: MemberEntity } };

    api.get(`${prefix}/members`, { schema: list, config: REQUIRED, preHandler: kind.read }, async (req, reply) => {
      const rows = await paginate(req, reply, findDirectMembers(db, kind.source(req), req.query));
      return rows.map((r) => presentMember(r, baseUrl));
    });

    api.get(`${prefix}/members/all`, { schema: list, config: REQUIRED, preHandler: kind.read }, async (req, reply) => {
      const rows = await paginate(req, reply, findAllMembers(db, kind.source(req), req.query));
      return rows.map((r) => presentMember(r, baseUrl));
    });

    api.get(`${prefix}/members/:user_id`, { schema: one, config: REQUIRED, preHandler: kind.read }, async (req) => {
      const row = await findDirectMember(db, kind.source(req), req.params.user_id);
      if (!row) throw memberNotFound();
      return presentMember(row, baseUrl);
    });

    api.get(`${prefix}/members/all/:user_id`, { schema: one, config: REQUIRED, preHandler: kind.read }, async (req) => {
      const row = await findInheritedOrDirectMember(db, kind.source(req), req.params.user_id);
      if (!row) throw memberNotFound();
      return presentMember(row, baseUrl);
    });

    api.post(
      `${prefix}/members`,
      { schema: { params: SourceParams, body: AddMemberBody, response: { 201: Type.Union([MemberEntity, BulkResultEntity]) } }, config: REQUIRED, preHandler: kind.manage },
      async (req, reply) => {
        const { body } = req;
        const source = kind.source(req);
        const expiresAt = expiryDate(body.expires_at) ?? null;
        reply.code(201);
        if (body.user_id.includes(',')) return addMembers(serviceContext(req), source, kind.canManage(req), body.user_id, body.access_level, expiresAt);
        const userId = /^\d+$/.test(body.user_id) ? Number(body.user_id) : Number.NaN;
        if (!Number.isSafeInteger(userId)) throw notFound('User');
        const row = await addMember(serviceContext(req), source, { userId, accessLevel: body.access_level, expiresAt });
        return presentMember(row, baseUrl);
      },
    );

    api.put(
      `${prefix}/members/:user_id`,
      { schema: { params: MemberParams, body: UpdateMemberBody, response: { 200: MemberEntity } }, config: REQUIRED, preHandler: kind.manage },
      async (req) => {
        const { body } = req;
        const row = await updateMember(serviceContext(req), kind.source(req), kind.canManage(req), req.params.user_id, { accessLevel: body.access_level, expiresAt: expiryDate(body.expires_at) });
        return presentMember(row, baseUrl);
      },
    );

    api.delete(
      `${prefix}/members/:user_id`,
      { schema: { params: MemberParams, body: RemoveMemberBody, response: { 204: NoContent } }, config: REQUIRED, preHandler: kind.read },
      async (req, reply) => {
        const { skip_subresources: skipSubresources } = req.body;
        await removeMember(serviceContext(req), kind.source(req), kind.canManage(req), req.params.user_id, { skipSubresources: skipSubresources ?? false });
        return reply.code(204).send();
      },
    );
  }
};
