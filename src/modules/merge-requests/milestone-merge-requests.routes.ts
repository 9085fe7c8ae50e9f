// The merge requests of a milestone (14.x GET /projects/:id/milestones/:milestone_id/merge_requests
// and the groups' route): those the caller may read, found by the milestone's title
// (merge-requests.finder milestoneMergeRequests), highest label priority first, in the
// MergeRequestBasic form. Reading the milestone is what the route asks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { paginate } from '../../core/pagination.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { loadGroupMilestone, loadProjectMilestone, loadedMilestone } from '../milestones/index.ts';
import { MilestoneIssuablesQuery, MilestoneParams } from '../milestones/milestones.schemas.ts';
import { loadMergeRequestRelations, milestoneMergeRequests } from './merge-requests.finder.ts';
import { presentMergeRequestBasic } from './merge-requests.presenter.ts';
import { MergeRequestBasicEntity } from './merge-requests.schemas.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const milestoneMergeRequestRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config, now } = api.deps;

  async function present(rows: MergeRequestRow[], fromProjectId: number | null) {
    const relations = await loadMergeRequestRelations(db, rows);
    const today = now().toISOString().slice(0, 10);
    return rows.map((row) => presentMergeRequestBasic(row, relations, { baseUrl: config.externalUrl, fromProjectId, withLabelsDetails: false, renderHtml: false }, today));
  }

  const schema = { params: MilestoneParams, querystring: MilestoneIssuablesQuery, response: { 200: Type.Array(MergeRequestBasicEntity) } };

  api.get('/projects/:id/milestones/:milestone_id/merge_requests', { schema, config: SIGNED_IN, preHandler: loadProjectMilestone('read') }, async (req, reply) => {
    const { row: project, namespace } = loadedProject(req);
    const places = { projectId: project.id, groupId: namespace.type === 'Group' ? namespace.id : null };
    return present(await paginate(req, reply, milestoneMergeRequests(db, req.actor, loadedMilestone(req).title, places)), project.id);
  });

  api.get('/groups/:id/milestones/:milestone_id/merge_requests', { schema, config: SIGNED_IN, preHandler: loadGroupMilestone('read') }, async (req, reply) => {
    const places = { groupId: loadedGroup(req).row.id };
    return present(await paginate(req, reply, milestoneMergeRequests(db, req.actor, loadedMilestone(req).title, places)), null);
  });
};
