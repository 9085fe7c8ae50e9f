// What the milestones module offers beyond its files by role: the pre-handlers that load a
// project's or group's milestones (or one of them) with the caller's rights checked, for the
// routes of other modules that list a milestone's issues and merge requests.
export { type MilestoneNeed, groupMilestoneParent, loadGroupMilestone, loadGroupMilestones, loadProjectMilestone, loadProjectMilestones, loadedMilestone, projectMilestoneParent } from './milestones.access.ts';
