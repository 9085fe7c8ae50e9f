// Protected branches and protected tags (spec part 1 §4.5 names them; the platform's
// protected_branches and protected_tags APIs, 14.x, fill in the rest): list, show, protect,
// unprotect. Every route is for maintainers (admin_protected_branch / manage_protected_tags): a
// project the caller may not see is a 404, one they see without the ability a 403, anonymous
// callers included.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { paginate } from '../../core/pagination.ts';
import { pusherOf } from '../../domain/ref-protection.ts';
import { NoContent } from '../../core/schema.ts';
import { branchAccessLevels, findProtectedBranch, findProtectedBranches, findProtectedTag, findProtectedTags, tagAccessLevels } from './protected-refs.finder.ts';
import { presentProtectedBranch, presentProtectedTag } from './protected-refs.presenter.ts';
import {
  ListProtectedBranchesQuery,
  ListProtectedTagsQuery,
  ProjectParams,
  ProtectBranchBody,
  ProtectTagBody,
  ProtectedBranchEntity,
  ProtectedTagEntity,
  RuleParams,
} from './protected-refs.schemas.ts';
import { protectBranch, protectTag, ruleNotFound, unprotectBranch, unprotectTag } from './protected-refs.service.ts';

/** Anonymous callers are refused by the abilities of the pre-handlers (404 or 403), as on the platform. */
const OPTIONAL = { auth: 'optional' } as const;

export const protectedRefRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db } = deps;
  const branches = loadProject('admin_protected_branch');
  const tags = loadProject('manage_protected_tags');

  // ---- Branches ---------------------------------------------------------------------------------

  api.get(
    '/projects/:id/protected_branches',
    { schema: { params: ProjectParams, querystring: ListProtectedBranchesQuery, response: { 200: Type.Array(ProtectedBranchEntity) } }, config: OPTIONAL, preHandler: branches },
    async (req, reply) => {
      const projectId = loadedProject(req).row.id;
      const rows = await paginate(req, reply, findProtectedBranches(db, projectId, req.query));
      const levels = await branchAccessLevels(db, projectId, rows.map((r) => r.id));
      return rows.map((r) => presentProtectedBranch(r, levels.get(r.id) ?? []));
    },
  );

  api.get('/projects/:id/protected_branches/:name', { schema: { params: RuleParams, response: { 200: ProtectedBranchEntity } }, config: OPTIONAL, preHandler: branches }, async (req) => {
    const projectId = loadedProject(req).row.id;
    const row = await findProtectedBranch(db, projectId, req.params.name);
    if (!row) throw ruleNotFound();
    const levels = await branchAccessLevels(db, projectId, [row.id]);
    return presentProtectedBranch(row, levels.get(row.id) ?? []);
  });

  api.post(
    '/projects/:id/protected_branches',
    { schema: { params: ProjectParams, body: ProtectBranchBody, response: { 201: ProtectedBranchEntity } }, config: OPTIONAL, preHandler: branches },
    async (req, reply) => {
      const project = loadedProject(req);
      const { row, levels } = await protectBranch(serviceContext(req), project.row.id, pusherOf(project, req.actor), req.body);
      reply.code(201);
      return presentProtectedBranch(row, levels);
    },
  );

  api.delete('/projects/:id/protected_branches/:name', { schema: { params: RuleParams, response: { 204: NoContent } }, config: OPTIONAL, preHandler: branches }, async (req, reply) => {
    const project = loadedProject(req);
    await unprotectBranch(serviceContext(req), project.row.id, pusherOf(project, req.actor), req.params.name, req.headers['if-unmodified-since']);
    return reply.code(204).send();
  });

  // ---- Tags -------------------------------------------------------------------------------------

  api.get(
    '/projects/:id/protected_tags',
    { schema: { params: ProjectParams, querystring: ListProtectedTagsQuery, response: { 200: Type.Array(ProtectedTagEntity) } }, config: OPTIONAL, preHandler: tags },
    async (req, reply) => {
      const projectId = loadedProject(req).row.id;
      const rows = await paginate(req, reply, findProtectedTags(db, projectId));
      const levels = await tagAccessLevels(db, projectId, rows.map((r) => r.id));
      return rows.map((r) => presentProtectedTag(r, levels.get(r.id) ?? []));
    },
  );

  api.get('/projects/:id/protected_tags/:name', { schema: { params: RuleParams, response: { 200: ProtectedTagEntity } }, config: OPTIONAL, preHandler: tags }, async (req) => {
    const projectId = loadedProject(req).row.id;
    const row = await findProtectedTag(db, projectId, req.params.name);
    if (!row) throw ruleNotFound();
    const levels = await tagAccessLevels(db, projectId, [row.id]);
    return presentProtectedTag(row, levels.get(row.id) ?? []);
  });

  api.post(
    '/projects/:id/protected_tags',
    { schema: { params: ProjectParams, body: ProtectTagBody, response: { 201: ProtectedTagEntity } }, config: OPTIONAL, preHandler: tags },
    async (req, reply) => {
      const { row, levels } = await protectTag(serviceContext(req), loadedProject(req).row.id, req.body);
      reply.code(201);
      return presentProtectedTag(row, levels);
    },
  );

  api.delete('/projects/:id/protected_tags/:name', { schema: { params: RuleParams, response: { 204: NoContent } }, config: OPTIONAL, preHandler: tags }, async (req, reply) => {
    await unprotectTag(serviceContext(req), loadedProject(req).row.id, req.params.name, req.headers['if-unmodified-since']);
    return reply.code(204).send();
  });
};
