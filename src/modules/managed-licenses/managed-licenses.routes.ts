// Managed licenses (spec Part 1 §4.8; the platform's managed licenses API, 14.x): read by
// Reporters and up, and by anyone who sees a public or internal project (the list even without
// signing in); written by Maintainers. A policy is named by its id or by its license's name,
// URL-encoded. Beyond the spec, a pipeline's license scanning report under this policy
// (GET /projects/:id/pipelines/:pipeline_id/licenses, a Quarry extension).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { SoftwareLicensePolicyRow } from '../../db/schema.ts';
import { pipelineLicenses } from './license-compliance.ts';
import { findPolicy, findProjectPipeline, projectPolicies } from './managed-licenses.finder.ts';
import { presentLicenseCompliance, presentManagedLicense } from './managed-licenses.presenter.ts';
import {
  CreateManagedLicenseBody,
  LicenseComplianceEntity,
  ListManagedLicensesQuery,
  ManagedLicenseEntity,
  ManagedLicenseParams,
  PipelineParams,
  ProjectParams,
  UpdateManagedLicenseBody,
} from './managed-licenses.schemas.ts';
import { createPolicy, deletePolicy, updatePolicy } from './managed-licenses.service.ts';

const ANYONE = { auth: 'optional' } as const;
const SIGNED_IN = { auth: 'required' } as const;

export const managedLicenseRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const readers = loadProject('read_software_license_policy');
  const maintainers = loadProject('admin_software_license_policy');

  async function requirePolicy(req: FastifyRequest, idOrName: string): Promise<SoftwareLicensePolicyRow> {
    const policy = await findPolicy(db, loadedProject(req).row.id, idOrName);
    if (!policy) throw notFound('SoftwareLicensePolicy');
    return policy;
  }

  api.get(
    '/projects/:id/managed_licenses',
    { schema: { params: ProjectParams, querystring: ListManagedLicensesQuery, response: { 200: Type.Array(ManagedLicenseEntity) } }, config: ANYONE, preHandler: readers },
    async (req, reply) => (await paginate(req, reply, projectPolicies(db, loadedProject(req).row.id))).map(presentManagedLicense),
  );

  api.get(
    '/projects/:id/managed_licenses/:managed_license_id',
    { schema: { params: ManagedLicenseParams, response: { 200: ManagedLicenseEntity } }, config: SIGNED_IN, preHandler: readers },
    async (req) => presentManagedLicense(await requirePolicy(req, req.params.managed_license_id)),
  );

  api.post(
    '/projects/:id/managed_licenses',
    { schema: { params: ProjectParams, body: CreateManagedLicenseBody, response: { 201: ManagedLicenseEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => reply.code(201).send(presentManagedLicense(await createPolicy(serviceContext(req), loadedProject(req).row, req.body))),
  );

  api.patch(
    '/projects/:id/managed_licenses/:managed_license_id',
    { schema: { params: ManagedLicenseParams, body: UpdateManagedLicenseBody, response: { 200: ManagedLicenseEntity } }, config: SIGNED_IN, preHandler: maintainers },
    async (req) => {
      const policy = await requirePolicy(req, req.params.managed_license_id);
      return presentManagedLicense(await updatePolicy(serviceContext(req), policy, req.body.approval_status));
    },
  );

  api.delete(
    '/projects/:id/managed_licenses/:managed_license_id',
    { schema: { params: ManagedLicenseParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: maintainers },
    async (req, reply) => {
      await deletePolicy(serviceContext(req), await requirePolicy(req, req.params.managed_license_id));
      return reply.code(204).send();
    },
  );

  api.get(
    '/projects/:id/pipelines/:pipeline_id/licenses',
    { schema: { params: PipelineParams, response: { 200: LicenseComplianceEntity } }, config: ANYONE, preHandler: readers },
    async (req) => {
      const project = loadedProject(req).row;
      const pipeline = await findProjectPipeline(db, project.id, req.params.pipeline_id);
      if (!pipeline) throw notFound('Pipeline');
      const result = await pipelineLicenses(db, config, project.id, pipeline.id);
      return presentLicenseCompliance(pipeline.id, result.found, result.licenses, result.errors);
    },
  );
};
