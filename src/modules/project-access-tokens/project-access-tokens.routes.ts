// Project access tokens: list, show, create, revoke. The project must be readable (404); reading
// needs admin_project (401 otherwise, as the platform answers); creating needs
// create_project_access_token and revoking admin_project (400 with the reason otherwise).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { serviceContext } from '../../core/context.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { unauthorized } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { findProjectTokens } from './project-access-tokens.finder.ts';
import { presentProjectToken } from './project-access-tokens.presenter.ts';
import {
  CreateProjectTokenBody,
  ListProjectTokensQuery,
  ProjectAccessTokenEntity,
  ProjectAccessTokenWithSecretEntity,
  ProjectParams,
  TokenParams,
} from './project-access-tokens.schemas.ts';
import { createProjectAccessToken, findTokenOrFail, revokeProjectAccessToken } from './project-access-tokens.service.ts';

const REQUIRED = { auth: 'required' } as const;
const readable = loadProject('read_project');

export const projectAccessTokenRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const today = () => deps.now().toISOString().slice(0, 10);

  function requireReader(req: FastifyRequest): void {
    if (!loadedProject(req).can.has('admin_project')) throw unauthorized();
  }

  api.get(
    '/projects/:id/access_tokens',
    { schema: { params: ProjectParams, querystring: ListProjectTokensQuery, response: { 200: Type.Array(ProjectAccessTokenEntity) } }, config: REQUIRED, preHandler: readable },
    async (req, reply) => {
      requireReader(req);
      const rows = await paginate(req, reply, findProjectTokens(deps.db, loadedProject(req).row.id));
      const day = today();
      return rows.map((r) => presentProjectToken(r, day));
    },
  );

  api.get(
    '/projects/:id/access_tokens/:token_id',
    { schema: { params: TokenParams, response: { 200: ProjectAccessTokenEntity } }, config: REQUIRED, preHandler: readable },
    async (req) => {
      requireReader(req);
      const row = await findTokenOrFail(serviceContext(req), loadedProject(req).row.id, req.params.token_id);
      return presentProjectToken(row, today());
    },
  );

  api.post(
    '/projects/:id/access_tokens',
    { schema: { params: ProjectParams, body: CreateProjectTokenBody, response: { 201: ProjectAccessTokenWithSecretEntity } }, config: REQUIRED, preHandler: readable },
    async (req, reply) => {
      const { row, token, accessLevel } = await createProjectAccessToken(serviceContext(req), loadedProject(req), req.body);
      reply.code(201);
      return { ...presentProjectToken({ ...row, access_level: accessLevel }, today()), token };
    },
  );

  api.delete(
    '/projects/:id/access_tokens/:token_id',
    { schema: { params: TokenParams, response: { 204: NoContent } }, config: REQUIRED, preHandler: readable },
    async (req, reply) => {
      await revokeProjectAccessToken(serviceContext(req), loadedProject(req), req.params.token_id);
      return reply.code(204).send();
    },
  );
};
