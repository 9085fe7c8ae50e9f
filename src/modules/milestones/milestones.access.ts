// Who may read and change milestones (14.x ProjectPolicy and GroupPolicy): a project's are read by
// its readers while its issues or its merge requests are open to them (403 otherwise), and changed
// by its Developers and up unless it is archived; a group's are read by whoever reads the group
// and changed by its Developers and up. A milestone named by the path that the project or group
// does not own is the platform's record-not-found 404. Every milestone route needs a signed-in
// caller, which the routes declare.
import type { FastifyRequest } from 'fastify';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import type { MilestoneRow } from '../../db/schema.ts';
import { readProjectSettings } from '../../domain/settings/project-settings.ts';
import { type MilestoneParent, findMilestone } from './milestones.finder.ts';

/** read_milestone, or admin_milestone too. */
export type MilestoneNeed = 'read' | 'admin';

const milestones = new WeakMap<FastifyRequest, MilestoneRow>();

/** The milestone a loadProjectMilestone or loadGroupMilestone pre-handler found. */
export function loadedMilestone(req: FastifyRequest): MilestoneRow {
  const milestone = milestones.get(req);
  if (!milestone) throw new Error(`${req.method} ${req.routeOptions.url}: no milestone was loaded (the route has no milestone pre-handler)`);
  return milestone;
}

/** The project a project's milestones pre-handler loaded, as the finder names a parent. */
export function projectMilestoneParent(req: FastifyRequest): MilestoneParent {
  const project = loadedProject(req);
  return { project: project.row, namespace: project.namespace };
}

/** The group a group's milestones pre-handler loaded, as the finder names a parent. */
export const groupMilestoneParent = (req: FastifyRequest): MilestoneParent => ({ group: loadedGroup(req).row });

/** Loads the project named by `:id` and requires what `need` asks of its milestones. */
export function loadProjectMilestones(need: MilestoneNeed) {
  const load = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await load(req);
    const { row, access, can } = loadedProject(req);
    const { features } = await readProjectSettings(req.server.deps.db, row);
    const open = (feature: 'issues' | 'merge_requests') => projectFeatureAvailable(req.actor, row, access, feature, features[`${feature}_access_level`]);
    if (!open('issues') && !open('merge_requests')) throw forbidden();
    if (need === 'admin' && !can.has('admin_milestone')) throw forbidden();
  };
}

/** Loads the group named by `:id` and requires what `need` asks of its milestones. */
export const loadGroupMilestones = (need: MilestoneNeed) => loadGroup(need === 'admin' ? 'admin_milestone' : 'read_group');

/** After the parent's pre-handler: the parent's own milestone named by `:milestone_id`. */
function loadMilestone(loadParent: (req: FastifyRequest) => Promise<void>, parentOf: (req: FastifyRequest) => MilestoneParent) {
  return async (req: FastifyRequest) => {
    await loadParent(req);
    const { milestone_id: id } = req.params as { milestone_id: number };
    const milestone = await findMilestone(req.server.deps.db, parentOf(req), id);
    if (!milestone) throw apiError(404, '404 Not found');
    milestones.set(req, milestone);
  };
}

/** loadProjectMilestones, then the project's milestone named by `:milestone_id`. */
export const loadProjectMilestone = (need: MilestoneNeed) => loadMilestone(loadProjectMilestones(need), projectMilestoneParent);

/** loadGroupMilestones, then the group's milestone named by `:milestone_id`. */
export const loadGroupMilestone = (need: MilestoneNeed) => loadMilestone(loadGroupMilestones(need), groupMilestoneParent);
