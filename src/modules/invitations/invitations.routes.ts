// Group and project invitations (spec Part 2 §4.7): invite addresses, list, change and withdraw
// pending invitations. Every route needs a signed-in user; the source must be readable (404
// otherwise); listing is for its readers, the rest for those who administer it (admin_project:
// Maintainer and up; admin_group: Owner), 403 otherwise.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { type MemberSource, groupSource, projectSource } from '../members/members.finder.ts';
import { expiryDate } from '../members/members.service.ts';
import { findInvitations } from './invitations.finder.ts';
import { presentInvitation } from './invitations.presenter.ts';
import {
  InvitationChangeEntity,
  InvitationEntity,
  InvitationParams,
  InviteBody,
  InviteResultEntity,
  ListInvitationsQuery,
  SourceParams,
  UpdateInvitationBody,
} from './invitations.schemas.ts';
import { inviteMembers, removeInvitation, updateInvitation } from './invitations.service.ts';

const REQUIRED = { auth: 'required' } as const;

interface SourceKind {
  prefix: string;
  read: preHandlerAsyncHookHandler;
  admin: preHandlerAsyncHookHandler;
  source(req: FastifyRequest): MemberSource;
}

const KINDS: SourceKind[] = [
  {
    prefix: '/projects/:id',
    read: loadProject('read_project_member'),
    admin: loadProject('admin_project'),
    source: (req) => projectSource(loadedProject(req).row, loadedProject(req).namespace),
  },
  {
    prefix: '/groups/:id',
    read: loadGroup('read_group_member'),
    admin: loadGroup('admin_group'),
    source: (req) => groupSource(loadedGroup(req).row),
  },
];

export const invitationRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  for (const kind of KINDS) {
    const { prefix } = kind;

    api.post(
      `${prefix}/invitations`,
      { schema: { params: SourceParams, body: InviteBody, response: { 201: InviteResultEntity } }, config: REQUIRED, preHandler: kind.admin },
      async (req, reply) => {
        const { body } = req;
        const emails = typeof body.email === 'string' ? [] : body.email;
        const result = await inviteMembers(serviceContext(req), kind.source(req), emails, body.access_level, expiryDate(body.expires_at) ?? null);
        return reply.code(201).send(result);
      },
    );

    api.get(
      `${prefix}/invitations`,
      { schema: { params: SourceParams, querystring: ListInvitationsQuery, response: { 200: Type.Array(InvitationEntity) } }, config: REQUIRED, preHandler: kind.read },
      async (req, reply) => {
        const rows = await paginate(req, reply, findInvitations(db, kind.source(req), req.query.query));
        return rows.map(presentInvitation);
      },
    );

    api.put(
      `${prefix}/invitations/:email`,
      { schema: { params: InvitationParams, body: UpdateInvitationBody, response: { 200: InvitationChangeEntity } }, config: REQUIRED, preHandler: kind.admin },
      async (req) => {
        const { body } = req;
        return updateInvitation(serviceContext(req), kind.source(req), req.params.email, { accessLevel: body.access_level, expiresAt: expiryDate(body.expires_at) });
      },
    );

    api.delete(
      `${prefix}/invitations/:email`,
      { schema: { params: InvitationParams, response: { 204: NoContent } }, config: REQUIRED, preHandler: kind.admin },
      async (req, reply) => {
        await removeInvitation(serviceContext(req), kind.source(req), req.params.email, req.headers['if-unmodified-since']);
        return reply.code(204).send();
      },
    );
  }
};
