// Merge request approvals (14.x, the licensed edition's shape): a project's approval settings
// (Maintainers read and change them), a merge request's approvals (its readers; anonymous callers
// on public projects too), approving and withdrawing an approval (Developers and up, signed in),
// and the approval state. Approving twice, one's own merge request (unless allowed) or with a
// wrong password is the platform's 401; withdrawing an approval never given is its 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, notFound, unauthorized } from '../../core/errors.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { findMergeRequestByIid } from '../merge-requests/merge-requests.finder.ts';
import { type MergeRequestAccess, mergeRequestAccess } from '../merge-requests/merge-requests.routes.ts';
import { findApprovers, readApprovalSettings } from './merge-request-approvals.finder.ts';
import { presentApprovalSettings, presentApprovalState, presentMergeRequestApprovals } from './merge-request-approvals.presenter.ts';
import {
  ApprovalStateEntity,
  ApproveBody,
  MergeRequestApprovalsEntity,
  MergeRequestParams,
  ProjectApprovalSettingsEntity,
  ProjectParams,
  UpdateApprovalSettingsBody,
} from './merge-request-approvals.schemas.ts';
import { approveMergeRequest, eligibleToApprove, unapproveMergeRequest, updateApprovalSettings } from './merge-request-approvals.service.ts';

const OPTIONAL = { auth: 'optional' } as const;
const REQUIRED = { auth: 'required' } as const;

export const mergeRequestApprovalRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const settingsRoute = { config: REQUIRED, preHandler: loadProject('admin_project') };

  api.get('/projects/:id/approvals', { ...settingsRoute, schema: { params: ProjectParams, response: { 200: ProjectApprovalSettingsEntity } } }, async (req) =>
    presentApprovalSettings(await readApprovalSettings(db, loadedProject(req).row.id)),
  );

  api.post('/projects/:id/approvals', { ...settingsRoute, schema: { params: ProjectParams, body: UpdateApprovalSettingsBody, response: { 201: ProjectApprovalSettingsEntity } } }, async (req, reply) => {
    const settings = await updateApprovalSettings(serviceContext(req), loadedProject(req).row.id, req.body);
    reply.code(201);
    return presentApprovalSettings(settings);
  });

  /** The merge request, if the caller reads it (404 "404 Not found" otherwise), and, for `approve`, may approve it (403). */
  async function requireMergeRequest(req: FastifyRequest, iid: number, approve = false): Promise<{ mr: MergeRequestRow; access: MergeRequestAccess }> {
    const project = loadedProject(req);
    const access = await mergeRequestAccess(req, project);
    const mr = access.read ? await findMergeRequestByIid(db, project.row.id, iid) : undefined;
    if (!mr) throw apiError(404, '404 Not found');
    if (approve && !access.admin) throw forbidden();
    return { mr, access };
  }

  async function presentApprovals(req: FastifyRequest, mr: MergeRequestRow, access: MergeRequestAccess) {
    const [settings, approvers] = await Promise.all([readApprovalSettings(db, mr.project_id), findApprovers(db, mr.id)]);
    const user = req.actor?.user ?? null;
    const viewerCanApprove = eligibleToApprove(mr, settings, user, access.admin, approvers.map((a) => a.id));
    return presentMergeRequestApprovals(mr, { baseUrl: config.externalUrl, settings, approvers, viewer: user?.id ?? null, viewerCanApprove });
  }

  const readRoute = { config: OPTIONAL, preHandler: loadProject('read_project') };
  const writeRoute = { config: REQUIRED, preHandler: loadProject('read_project') };

  api.get('/projects/:id/merge_requests/:merge_request_iid/approvals', { ...readRoute, schema: { params: MergeRequestParams, response: { 200: MergeRequestApprovalsEntity } } }, async (req) => {
    const { mr, access } = await requireMergeRequest(req, req.params.merge_request_iid);
    return presentApprovals(req, mr, access);
  });

  api.get('/projects/:id/merge_requests/:merge_request_iid/approval_state', { ...readRoute, schema: { params: MergeRequestParams, response: { 200: ApprovalStateEntity } } }, async (req) => {
    await requireMergeRequest(req, req.params.merge_request_iid);
    return presentApprovalState();
  });

  api.post(
    '/projects/:id/merge_requests/:merge_request_iid/approve',
    { ...writeRoute, schema: { params: MergeRequestParams, body: ApproveBody, response: { 201: MergeRequestApprovalsEntity } } },
    async (req, reply) => {
      const { mr, access } = await requireMergeRequest(req, req.params.merge_request_iid, true);
      const body = req.body ?? {};
      if (body.sha !== undefined && body.sha !== mr.sha) throw apiError(409, `SHA does not match HEAD of source branch: ${mr.sha ?? ''}`);
      const user = req.actor?.user;
      if (!user || !(await approveMergeRequest(serviceContext(req), mr, user, { mayApprove: access.admin, password: body.approval_password }))) throw unauthorized();
      reply.code(201);
      return presentApprovals(req, mr, access);
    },
  );

  api.post(
    '/projects/:id/merge_requests/:merge_request_iid/unapprove',
    { ...writeRoute, schema: { params: MergeRequestParams, response: { 201: MergeRequestApprovalsEntity } } },
    async (req, reply) => {
      const { mr, access } = await requireMergeRequest(req, req.params.merge_request_iid, true);
      const user = req.actor?.user;
      if (!user || !(await unapproveMergeRequest(serviceContext(req), mr, user.id))) throw notFound();
      reply.code(201);
      return presentApprovals(req, mr, access);
    },
  );
};
