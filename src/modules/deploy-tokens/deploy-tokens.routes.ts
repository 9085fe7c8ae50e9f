// Deploy tokens of projects (Maintainers), of groups (Owners) and of the instance (administrators,
// a list): a project or group the caller may not see is 404, one they see without the role 403.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { adminOnly } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { type DeployTokenOwner, findDeployToken, findDeployTokens } from './deploy-tokens.finder.ts';
import { presentDeployToken } from './deploy-tokens.presenter.ts';
import { CreateDeployTokenBody, DeployTokenEntity, DeployTokenWithTokenEntity, ListDeployTokensQuery, OwnerParams, TokenParams } from './deploy-tokens.schemas.ts';
import { createDeployToken, deleteDeployToken, deployTokenNotFound } from './deploy-tokens.service.ts';

const SIGNED_IN = { auth: 'required' } as const;

/** The project and group routes differ only in whose tokens they serve and who may. */
const OWNERS = [
  { prefix: '/projects/:id', preHandler: loadProject('admin_project'), owner: (req: FastifyRequest): DeployTokenOwner => ({ projectId: loadedProject(req).row.id }) },
  { prefix: '/groups/:id', preHandler: loadGroup('admin_group'), owner: (req: FastifyRequest): DeployTokenOwner => ({ groupId: loadedGroup(req).row.id }) },
] as const;

export const deployTokenRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, now } = api.deps;

  api.get(
    '/deploy_tokens',
    { schema: { querystring: ListDeployTokensQuery, response: { 200: Type.Array(DeployTokenEntity) } }, config: SIGNED_IN, preHandler: adminOnly },
    async (req, reply) => {
      const at = now();
      const rows = await paginate(req, reply, findDeployTokens(db, 'instance', req.query, at));
      return rows.map((row) => presentDeployToken(row, at));
    },
  );

  for (const { prefix, preHandler, owner } of OWNERS) {
    api.get(
      `${prefix}/deploy_tokens`,
      { schema: { params: OwnerParams, querystring: ListDeployTokensQuery, response: { 200: Type.Array(DeployTokenEntity) } }, config: SIGNED_IN, preHandler },
      async (req, reply) => {
        const at = now();
        const rows = await paginate(req, reply, findDeployTokens(db, owner(req), req.query, at));
        return rows.map((row) => presentDeployToken(row, at));
      },
    );

    api.get(
      `${prefix}/deploy_tokens/:token_id`,
      { schema: { params: TokenParams, response: { 200: DeployTokenEntity } }, config: SIGNED_IN, preHandler },
      async (req) => {
        const row = await findDeployToken(db, owner(req), req.params.token_id);
        if (!row) throw deployTokenNotFound();
        return presentDeployToken(row, now());
      },
    );

    api.post(
      `${prefix}/deploy_tokens`,
      { schema: { params: OwnerParams, body: CreateDeployTokenBody, response: { 201: DeployTokenWithTokenEntity } }, config: SIGNED_IN, preHandler },
      async (req, reply) => {
        const target = owner(req) as Exclude<DeployTokenOwner, 'instance'>;
        const { row, token } = await createDeployToken(serviceContext(req), target, req.body);
        reply.code(201);
        return { ...presentDeployToken(row, now()), token };
      },
    );

    api.delete(
      `${prefix}/deploy_tokens/:token_id`,
      { schema: { params: TokenParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler },
      async (req, reply) => {
        await deleteDeployToken(serviceContext(req), owner(req) as Exclude<DeployTokenOwner, 'instance'>, req.params.token_id);
        return reply.code(204).send();
      },
    );
  }
};
