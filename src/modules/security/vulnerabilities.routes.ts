// Project vulnerabilities (spec Part 1 §4.9), single vulnerabilities and their state actions
// (§4.10), and the dependency list (§4.11). The security dashboard is for Developers and up: a
// Reporter or Guest who sees the project gets 403, someone who does not see it 404 (§7). An action
// on a vulnerability already in its target state answers 304 without a body (§3).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ProjectAbility } from '../../core/access/abilities.ts';
import { accessToProject, loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { ProjectRow, VulnerabilityRow } from '../../db/schema.ts';
import { dependencyFindings, findVulnerability, latestDependencyPipeline, loadVulnerabilityView, pipelineDependencies, projectVulnerabilities } from './vulnerabilities.finder.ts';
import { presentDependency, presentVulnerability, presentVulnerabilityDetail } from './vulnerabilities.presenter.ts';
import {
  CreateVulnerabilityQuery,
  DependencyEntity,
  ListDependenciesQuery,
  ListVulnerabilitiesQuery,
  ProjectParams,
  VulnerabilityDetailEntity,
  VulnerabilityEntity,
  VulnerabilityParams,
} from './vulnerabilities.schemas.ts';
import { VULNERABILITY_ACTIONS, changeState, createFromFinding } from './vulnerabilities.service.ts';

// Anonymous callers are refused by the abilities (403 on a public project, 404 on a private one).
const READERS = { auth: 'optional' } as const;
const SIGNED_IN = { auth: 'required' } as const;

export const vulnerabilityRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  /** The vulnerability and its project, when the caller sees the project; then the ability. */
  async function requireVulnerability(req: FastifyRequest, id: number, ability: ProjectAbility): Promise<{ vulnerability: VulnerabilityRow; project: ProjectRow }> {
    const vulnerability = await findVulnerability(db, id);
    const project = vulnerability && (await db.selectFrom('projects').selectAll().where('id', '=', vulnerability.project_id).executeTakeFirst());
    if (!vulnerability || !project) throw notFound('Vulnerability');
    const { can } = await accessToProject(req, project);
    if (!can.has('read_project')) throw notFound('Vulnerability');
    if (!can.has(ability)) throw forbidden();
    return { vulnerability, project };
  }

  async function listForm(row: VulnerabilityRow) {
    return presentVulnerability(row, await loadVulnerabilityView(db, [row]));
  }

  api.get(
    '/projects/:id/vulnerabilities',
    { schema: { params: ProjectParams, querystring: ListVulnerabilitiesQuery, response: { 200: Type.Array(VulnerabilityEntity) } }, config: READERS, preHandler: loadProject('read_security_resource') },
    async (req, reply) => {
      const rows = await paginate(req, reply, projectVulnerabilities(db, loadedProject(req).row.id));
      const view = await loadVulnerabilityView(db, rows);
      return rows.map((row) => presentVulnerability(row, view));
    },
  );

  api.post(
    '/projects/:id/vulnerabilities',
    { schema: { params: ProjectParams, querystring: CreateVulnerabilityQuery, response: { 201: VulnerabilityEntity } }, config: READERS, preHandler: loadProject('admin_vulnerability') },
    async (req, reply) => {
      const row = await createFromFinding(serviceContext(req), loadedProject(req).row, req.query.finding_id);
      return reply.code(201).send(await listForm(row));
    },
  );

  api.get(
    '/vulnerabilities/:id',
    { schema: { params: VulnerabilityParams, response: { 200: VulnerabilityDetailEntity } }, config: READERS },
    async (req) => {
      const { vulnerability, project } = await requireVulnerability(req, req.params.id, 'read_security_resource');
      return presentVulnerabilityDetail(vulnerability, project);
    },
  );

  for (const action of VULNERABILITY_ACTIONS) {
    api.post(
      `/vulnerabilities/:id/${action}`,
      { schema: { params: VulnerabilityParams, response: { 201: VulnerabilityDetailEntity, 304: NoContent } }, config: READERS },
      async (req, reply) => {
        const { vulnerability, project } = await requireVulnerability(req, req.params.id, 'admin_vulnerability');
        const changed = await changeState(serviceContext(req), vulnerability, action);
        if (!changed) return reply.code(304).send();
        return reply.code(201).send(presentVulnerabilityDetail(changed, project));
      },
    );
  }

  api.get(
    '/projects/:id/dependencies',
    { schema: { params: ProjectParams, querystring: ListDependenciesQuery, response: { 200: Type.Array(DependencyEntity) } }, config: SIGNED_IN, preHandler: loadProject('read_dependencies') },
    async (req, reply) => {
      const project = loadedProject(req);
      const pipelineId = await latestDependencyPipeline(db, project.row.id);
      // No dependency scan yet: an empty list, with its pagination headers.
      const query = pipelineDependencies(db, pipelineId ?? 0, req.query.package_manager);
      const rows = await paginate(req, reply, query);
      const withVulnerabilities = project.can.has('read_security_resource');
      const findings = withVulnerabilities && pipelineId !== null ? await dependencyFindings(db, pipelineId, rows.map((r) => r.file_path)) : [];
      return rows.map((row) => presentDependency(row, findings, withVulnerabilities));
    },
  );
};
