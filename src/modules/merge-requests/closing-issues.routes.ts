// GET /projects/:id/merge_requests/:merge_request_iid/closes_issues (14.x lib/api/merge_requests.rb):
// the issues the merge request closes when merged, as kept in merge_requests_closing_issues, of
// those the caller may read (visible_closing_issues_for), oldest first, a page at a time.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { apiError } from '../../core/errors.ts';
import { PageParams, paginate } from '../../core/pagination.ts';
import { Params } from '../../core/params.ts';
import { loadIssueRelations, readableIssues } from '../issues/issues.finder.ts';
import { presentIssue } from '../issues/issues.presenter.ts';
import { IssueEntity } from '../issues/issues.schemas.ts';
import { findMergeRequestByIid } from './merge-requests.finder.ts';
import { mergeRequestAccess } from './merge-requests.routes.ts';
import { MergeRequestParams } from './merge-requests.schemas.ts';

const ClosesIssuesQuery = Params({ ...PageParams });

export const closingIssueRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  api.get(
    '/projects/:id/merge_requests/:merge_request_iid/closes_issues',
    { schema: { params: MergeRequestParams, querystring: ClosesIssuesQuery, response: { 200: Type.Array(IssueEntity) } }, config: { auth: 'optional' }, preHandler: loadProject('read_project') },
    async (req, reply) => {
      const project = loadedProject(req);
      const access = await mergeRequestAccess(req, project);
      const mr = access.read ? await findMergeRequestByIid(db, project.row.id, req.params.merge_request_iid) : undefined;
      if (!mr) throw apiError(404, '404 Not found');
      const q = readableIssues(db, req.actor)
        .where('issues.id', 'in', (eb) => eb.selectFrom('merge_requests_closing_issues').select('issue_id').where('merge_request_id', '=', mr.id))
        .orderBy('issues.id', 'asc');
      const rows = await paginate(req, reply, q);
      const relations = await loadIssueRelations(db, rows, req.actor);
      const today = api.deps.now().toISOString().slice(0, 10);
      return rows.map((row) => presentIssue(row, relations, { baseUrl: config.externalUrl, fromProjectId: project.row.id, withLabelsDetails: false, withSubscribed: false }, today));
    },
  );
};
