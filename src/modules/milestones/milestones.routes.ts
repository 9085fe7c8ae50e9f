// Milestones of projects and groups (14.x lib/api/project_milestones.rb, group_milestones.rb and
// the licensed edition's burndown events): lists, one, creation, updates with state events,
// deletion, a project milestone's promotion to its group, and burndown events. Every route needs a
// signed-in caller; who may read and change is milestones.access.ts. A milestone's issues and merge
// requests are listed by the issues and merge requests modules.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { accessToGroup, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, methodNotAllowed } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { requireOneOf } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import type { MilestoneRow } from '../../db/schema.ts';
import { groupWebUrl, projectWebUrl } from '../../domain/urls.ts';
import { groupMilestoneParent, loadGroupMilestone, loadGroupMilestones, loadProjectMilestone, loadProjectMilestones, loadedMilestone, projectMilestoneParent } from './milestones.access.ts';
import { type ListedMilestone, burndownParts, findMilestone, groupOf, listMilestones } from './milestones.finder.ts';
import { presentBurndown, presentMilestone } from './milestones.presenter.ts';
import {
  BurndownEventEntity,
  CreateMilestoneBody,
  ListMilestonesQuery,
  MilestoneEntity,
  MilestoneParams,
  ParentParams,
  PromotedEntity,
  UPDATE_KEYS,
  UpdateMilestoneBody,
} from './milestones.schemas.ts';
import { createMilestone, deleteMilestone, promoteMilestone, updateMilestone } from './milestones.service.ts';

const SIGNED_IN = { auth: 'required' } as const;
const NO_BURNDOWN = 'Milestone does not support burndown chart';

/** Grape's at_least_one_of, checked with the other parameters, before the project or group is looked up. */
const requireUpdateKey = async (req: FastifyRequest) => requireOneOf(req.rawParams, UPDATE_KEYS);

export const milestoneRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config, now } = api.deps;
  const today = () => now().toISOString().slice(0, 10);

  /** Milestones of a list, each under its project's or group's web address. */
  function presentListed(rows: ListedMilestone[], projectUrl: string | null) {
    return rows.map(({ group_full_path: groupPath, ...m }) => presentMilestone(m, m.project_id !== null && projectUrl ? projectUrl : groupWebUrl(config.externalUrl, groupPath ?? ''), today()));
  }

  /** One milestone of the loaded project or group. */
  function presentOne(req: FastifyRequest, m: MilestoneRow, parent: 'project' | 'group') {
    const ownerUrl = parent === 'project' ? projectWebUrl(config.externalUrl, loadedProject(req).row) : groupWebUrl(config.externalUrl, loadedGroup(req).row.full_path);
    return presentMilestone(m, ownerUrl, today());
  }

  /** Burndown events of the loaded milestone: 405 without both dates. */
  async function burndown(req: FastifyRequest) {
    const m = loadedMilestone(req);
    // The spec's rule: a milestone without both dates has no chart to draw.
    if (m.start_date === null || m.due_date === null) throw methodNotAllowed(NO_BURNDOWN);
    const end = m.due_date > today() ? today() : m.due_date;
    const { issues, events } = await burndownParts(db, req.actor, m.id, `${end}T23:59:59.999Z`);
    return presentBurndown(issues, events, m.start_date);
  }

  const one = { 200: MilestoneEntity };
  const list = { 200: Type.Array(MilestoneEntity) };

  for (const parent of ['project', 'group'] as const) {
    const base = parent === 'project' ? '/projects/:id/milestones' : '/groups/:id/milestones';
    const loadAll = parent === 'project' ? loadProjectMilestones : loadGroupMilestones;
    const loadOne = parent === 'project' ? loadProjectMilestone : loadGroupMilestone;
    const parentOf = parent === 'project' ? projectMilestoneParent : groupMilestoneParent;

    api.get(base, { schema: { params: ParentParams, querystring: ListMilestonesQuery, response: list }, config: SIGNED_IN, preHandler: loadAll('read') }, async (req, reply) => {
      const rows = await paginate(req, reply, listMilestones(db, req.actor, parentOf(req), req.query, now()));
      return presentListed(rows, parent === 'project' ? projectWebUrl(config.externalUrl, loadedProject(req).row) : null);
    });

    api.get(`${base}/:milestone_id`, { schema: { params: MilestoneParams, response: one }, config: SIGNED_IN, preHandler: loadOne('read') }, async (req) =>
      presentOne(req, loadedMilestone(req), parent),
    );

    api.post(base, { schema: { params: ParentParams, body: CreateMilestoneBody, response: { 201: MilestoneEntity } }, config: SIGNED_IN, preHandler: loadAll('admin') }, async (req, reply) => {
      const milestone = await createMilestone(serviceContext(req), parentOf(req), req.body);
      reply.code(201);
      return presentOne(req, milestone, parent);
    });

    api.put(
      `${base}/:milestone_id`,
      { schema: { params: MilestoneParams, body: UpdateMilestoneBody, response: one }, config: SIGNED_IN, preHandler: [requireUpdateKey, loadOne('admin')] },
      async (req) => presentOne(req, await updateMilestone(serviceContext(req), parentOf(req), loadedMilestone(req), req.body), parent),
    );

    api.delete(`${base}/:milestone_id`, { schema: { params: MilestoneParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: loadOne('admin') }, async (req, reply) => {
      await deleteMilestone(serviceContext(req), loadedMilestone(req));
      return reply.code(204).send();
    });

    api.get(`${base}/:milestone_id/burndown_events`, { schema: { params: MilestoneParams, response: { 200: Type.Array(BurndownEventEntity) } }, config: SIGNED_IN, preHandler: loadOne('read') }, burndown);
  }

  /**
   * Managing milestones in the project and in its group are both needed (a project of a personal
   * namespace has no group: 403), before the milestone is looked up. The platform answers the bare
   * status code.
   */
  api.post(
    '/projects/:id/milestones/:milestone_id/promote',
    { schema: { params: MilestoneParams, response: { 200: PromotedEntity } }, config: SIGNED_IN, preHandler: loadProjectMilestones('admin') },
    async (req, reply) => {
      const project = loadedProject(req);
      const group = groupOf(project.namespace);
      if (!group || !(await accessToGroup(req, group)).can.has('admin_milestone')) throw forbidden();
      const milestone = await findMilestone(db, projectMilestoneParent(req), req.params.milestone_id);
      if (!milestone) throw apiError(404, '404 Not found');
      await promoteMilestone(serviceContext(req), milestone, group);
      reply.code(200);
      return 200 as const;
    },
  );
};
