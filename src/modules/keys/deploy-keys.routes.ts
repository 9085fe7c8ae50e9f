// Deploy keys (spec part 1 §4.6): the instance's list for administrators, and a project's keys for
// those who administer the project (maintainers; a project the caller may not see is a 404, one
// they see without the role a 403). Every route needs a signed-in caller.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin } from '../../core/access/guards.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import { allDeployKeys, findProjectDeployKey, projectDeployKeys } from './deploy-keys.finder.ts';
import { presentDeployKey, presentDeployKeysProject } from './deploy-keys.presenter.ts';
import {
  AddDeployKeyBody,
  DeployKeyEntity,
  DeployKeysProjectEntity,
  ListDeployKeysQuery,
  ProjectKeyParams,
  ProjectParams,
  UpdateDeployKeyBody,
} from './deploy-keys.schemas.ts';
import { addDeployKey, enableDeployKey, removeDeployKey, updateDeployKey } from './deploy-keys.service.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const deployKeyRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;
  const maintainers = loadProject('admin_project');

  api.get('/deploy_keys', { schema: { querystring: ListDeployKeysQuery, response: { 200: Type.Array(DeployKeyEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const rows = await paginate(req, reply, allDeployKeys(db));
    return rows.map(presentDeployKey);
  });

  api.get(
    '/projects/:id/deploy_keys',
    { schema: { params: ProjectParams, querystring: ListDeployKeysQuery, response: { 200: Type.Array(DeployKeysProjectEntity) } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const rows = await paginate(req, reply, projectDeployKeys(db, loadedProject(req).row.id));
      return rows.map((r) => presentDeployKeysProject(r, r));
    },
  );

  api.get(
    '/projects/:id/deploy_keys/:key_id',
    { schema: { params: ProjectKeyParams, response: { 200: DeployKeysProjectEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req) => {
      const row = await findProjectDeployKey(db, loadedProject(req).row.id, req.params.key_id);
      // The platform's record-not-found answer (lower-case "found").
      if (!row) throw apiError(404, '404 Not found');
      return presentDeployKeysProject(row, row);
    },
  );

  api.post(
    '/projects/:id/deploy_keys',
    { schema: { params: ProjectParams, body: AddDeployKeyBody, response: { 201: DeployKeysProjectEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const row = await addDeployKey(serviceContext(req), loadedProject(req).row.id, req.body);
      reply.code(201);
      return presentDeployKeysProject(row, row);
    },
  );

  api.put(
    '/projects/:id/deploy_keys/:key_id',
    { schema: { params: ProjectKeyParams, body: UpdateDeployKeyBody, response: { 200: DeployKeysProjectEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req) => {
      const row = await updateDeployKey(serviceContext(req), loadedProject(req).row.id, req.params.key_id, req.body);
      return presentDeployKeysProject(row, row);
    },
  );

  api.post(
    '/projects/:id/deploy_keys/:key_id/enable',
    { schema: { params: ProjectKeyParams, response: { 201: DeployKeyEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const key = await enableDeployKey(serviceContext(req), loadedProject(req).row.id, req.params.key_id);
      reply.code(201);
      return presentDeployKey(key);
    },
  );

  api.delete(
    '/projects/:id/deploy_keys/:key_id',
    { schema: { params: ProjectKeyParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      const projectId = loadedProject(req).row.id;
      const row = await findProjectDeployKey(db, projectId, req.params.key_id);
      if (!row) throw notFound('Deploy Key');
      checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(row.join_updated_at));
      await removeDeployKey(serviceContext(req), projectId, row.id);
      return reply.code(204).send();
    },
  );
};
