// The issues of a milestone (14.x GET /projects/:id/milestones/:milestone_id/issues and the groups'
// route): those the caller sees, found by the milestone's title (issues.finder milestoneIssues),
// highest label priority first, in the IssueBasic form. Reading the milestone is what the route asks.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { paginate } from '../../core/pagination.ts';
import type { IssueRow } from '../../db/schema.ts';
import { loadGroupMilestone, loadProjectMilestone, loadedMilestone } from '../milestones/index.ts';
import { MilestoneIssuablesQuery, MilestoneParams } from '../milestones/milestones.schemas.ts';
import { loadIssueRelations, milestoneIssues } from './issues.finder.ts';
import { presentIssueBasic } from './issues.presenter.ts';
import { IssueBasicEntity } from './issues.schemas.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const milestoneIssueRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config, now } = api.deps;

  async function present(req: FastifyRequest, rows: IssueRow[], from: { fromProjectId: number | null; fromGroupId?: number }) {
    const relations = await loadIssueRelations(db, rows, req.actor);
    const today = now().toISOString().slice(0, 10);
    return rows.map((row) => presentIssueBasic(row, relations, { baseUrl: config.externalUrl, ...from, withLabelsDetails: false, withSubscribed: false }, today));
  }

  const schema = { params: MilestoneParams, querystring: MilestoneIssuablesQuery, response: { 200: Type.Array(IssueBasicEntity) } };

  api.get('/projects/:id/milestones/:milestone_id/issues', { schema, config: SIGNED_IN, preHandler: loadProjectMilestone('read') }, async (req, reply) => {
    const { row: project, namespace } = loadedProject(req);
    const places = { projectId: project.id, groupId: namespace.type === 'Group' ? namespace.id : null };
    const rows = await paginate(req, reply, milestoneIssues(db, req.actor, loadedMilestone(req).title, places));
    return present(req, rows, { fromProjectId: project.id });
  });

  api.get('/groups/:id/milestones/:milestone_id/issues', { schema, config: SIGNED_IN, preHandler: loadGroupMilestone('read') }, async (req, reply) => {
    const group = loadedGroup(req).row;
    const rows = await paginate(req, reply, milestoneIssues(db, req.actor, loadedMilestone(req).title, { groupId: group.id }));
    return present(req, rows, { fromProjectId: null, fromGroupId: group.id });
  });
};
