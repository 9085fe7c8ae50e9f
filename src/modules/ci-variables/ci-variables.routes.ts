// CI/CD variables (14.x lib/api/ci/variables.rb, group_variables.rb, admin/ci/variables.rb):
// a project's for its maintainers (`admin_build`), a group's for its maintainers, the instance's for
// administrators. A project's variables of one key may differ by environment scope: its
// single-variable routes take `filter[environment_scope]`, and answer 409 when a key names several.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { adminOnly } from '../../core/access/guards.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { loadGroup, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { conflict, forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiVariableRow } from '../../db/schema.ts';
import { loadCi } from '../pipelines/index.ts';
import { INSTANCE, type VariableOwner, findVariables, variablesOfKey } from './ci-variables.finder.ts';
import { presentInstanceVariable, presentScopedVariable } from './ci-variables.presenter.ts';
import {
  CreateProjectVariableBody,
  CreateVariableBody,
  FilterQuery,
  InstanceVariableEntity,
  KeyParams,
  ListQuery,
  OwnerKeyParams,
  OwnerParams,
  ScopedVariableEntity,
  UpdateProjectVariableBody,
  UpdateVariableBody,
} from './ci-variables.schemas.ts';
import { createVariable, deleteVariable, updateVariable } from './ci-variables.service.ts';

const REQUIRED = { auth: 'required' } as const;
const MULTIPLE = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'";

/** Group maintainers manage the group's variables (14.x GroupPolicy `admin_build`). */
async function groupMaintainer(req: FastifyRequest) {
  const group = loadedGroup(req);
  if (group.access < ACCESS.MAINTAINER && !req.actor?.isAdmin) throw forbidden();
}

export const ciVariableRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const box = secretBox(config.dataDir);
  const projectOwner = (req: FastifyRequest): VariableOwner => ({ type: 'project', id: loadedProject(req).row.id });
  const groupOwner = (req: FastifyRequest): VariableOwner => ({ type: 'group', id: loadedGroup(req).row.id });

  /** The project's variable of a key (in the filter's scope): 404 when none, 409 when several. */
  async function projectVariable(req: FastifyRequest, key: string, filter: { environment_scope?: string } | undefined): Promise<CiVariableRow> {
    const rows = await variablesOfKey(db, projectOwner(req), key, filter?.environment_scope);
    if (rows.length === 0) throw notFound('Variable');
    if (rows.length > 1) throw conflict(MULTIPLE);
    return rows[0];
  }

  async function ownedVariable(owner: VariableOwner, key: string, what: string): Promise<CiVariableRow> {
    const [row] = await variablesOfKey(db, owner, key);
    if (!row) throw notFound(what);
    return row;
  }

  // ---- Projects ----
  const project = { config: REQUIRED, preHandler: loadCi('admin_build') };

  api.get('/projects/:id/variables', { schema: { params: OwnerParams, querystring: ListQuery, response: { 200: Type.Array(ScopedVariableEntity) } }, ...project }, async (req, reply) => {
    const rows = await paginate(req, reply, findVariables(db, projectOwner(req)));
    return rows.map((r) => presentScopedVariable(r, box));
  });

  api.get('/projects/:id/variables/:key', { schema: { params: OwnerKeyParams, querystring: FilterQuery, response: { 200: ScopedVariableEntity } }, ...project }, async (req) =>
    presentScopedVariable(await projectVariable(req, req.params.key, req.query.filter), box),
  );

  api.post('/projects/:id/variables', { schema: { params: OwnerParams, body: CreateProjectVariableBody, response: { 201: ScopedVariableEntity } }, ...project }, async (req, reply) => {
    const row = await createVariable(serviceContext(req), projectOwner(req), req.body);
    reply.code(201);
    return presentScopedVariable(row, box);
  });

  api.put('/projects/:id/variables/:key', { schema: { params: OwnerKeyParams, body: UpdateProjectVariableBody, response: { 200: ScopedVariableEntity } }, ...project }, async (req) => {
    const { key: _key, filter, ...changes } = req.body;
    const row = await projectVariable(req, req.params.key, filter);
    return presentScopedVariable(await updateVariable(serviceContext(req), projectOwner(req), row, changes), box);
  });

  api.delete('/projects/:id/variables/:key', { schema: { params: OwnerKeyParams, querystring: FilterQuery, response: { 204: NoContent } }, ...project }, async (req, reply) => {
    await deleteVariable(serviceContext(req), await projectVariable(req, req.params.key, req.query.filter));
    return reply.code(204).send();
  });

  // ---- Groups ----
  const group = { config: REQUIRED, preHandler: [loadGroup('read_group'), groupMaintainer] };

  api.get('/groups/:id/variables', { schema: { params: OwnerParams, querystring: ListQuery, response: { 200: Type.Array(ScopedVariableEntity) } }, ...group }, async (req, reply) => {
    const rows = await paginate(req, reply, findVariables(db, groupOwner(req)));
    return rows.map((r) => presentScopedVariable(r, box));
  });

  api.get('/groups/:id/variables/:key', { schema: { params: OwnerKeyParams, response: { 200: ScopedVariableEntity } }, ...group }, async (req) =>
    presentScopedVariable(await ownedVariable(groupOwner(req), req.params.key, 'GroupVariable'), box),
  );

  api.post('/groups/:id/variables', { schema: { params: OwnerParams, body: CreateVariableBody, response: { 201: ScopedVariableEntity } }, ...group }, async (req, reply) => {
    const row = await createVariable(serviceContext(req), groupOwner(req), req.body);
    reply.code(201);
    return presentScopedVariable(row, box);
  });

  api.put('/groups/:id/variables/:key', { schema: { params: OwnerKeyParams, body: UpdateVariableBody, response: { 200: ScopedVariableEntity } }, ...group }, async (req) => {
    const { key: _key, ...changes } = req.body;
    const row = await ownedVariable(groupOwner(req), req.params.key, 'GroupVariable');
    return presentScopedVariable(await updateVariable(serviceContext(req), groupOwner(req), row, changes), box);
  });

  api.delete('/groups/:id/variables/:key', { schema: { params: OwnerKeyParams, response: { 204: NoContent } }, ...group }, async (req, reply) => {
    await deleteVariable(serviceContext(req), await ownedVariable(groupOwner(req), req.params.key, 'GroupVariable'));
    return reply.code(204).send();
  });

  // ---- The instance ----
  const admin = { config: REQUIRED, preHandler: adminOnly };

  api.get('/admin/ci/variables', { schema: { querystring: ListQuery, response: { 200: Type.Array(InstanceVariableEntity) } }, ...admin }, async (req, reply) => {
    const rows = await paginate(req, reply, findVariables(db, INSTANCE));
    return rows.map((r) => presentInstanceVariable(r, box));
  });

  api.get('/admin/ci/variables/:key', { schema: { params: KeyParams, response: { 200: InstanceVariableEntity } }, ...admin }, async (req) =>
    presentInstanceVariable(await ownedVariable(INSTANCE, req.params.key, 'InstanceVariable'), box),
  );

  api.post('/admin/ci/variables', { schema: { body: CreateVariableBody, response: { 201: InstanceVariableEntity } }, ...admin }, async (req, reply) => {
    const row = await createVariable(serviceContext(req), INSTANCE, req.body);
    reply.code(201);
    return presentInstanceVariable(row, box);
  });

  api.put('/admin/ci/variables/:key', { schema: { params: KeyParams, body: UpdateVariableBody, response: { 200: InstanceVariableEntity } }, ...admin }, async (req) => {
    const { key: _key, ...changes } = req.body;
    const row = await ownedVariable(INSTANCE, req.params.key, 'InstanceVariable');
    return presentInstanceVariable(await updateVariable(serviceContext(req), INSTANCE, row, changes), box);
  });

  api.delete('/admin/ci/variables/:key', { schema: { params: KeyParams, response: { 204: NoContent } }, ...admin }, async (req, reply) => {
    await deleteVariable(serviceContext(req), await ownedVariable(INSTANCE, req.params.key, 'InstanceVariable'));
    return reply.code(204).send();
  });
};
