// The one ability table: what an actor may do to a project or group, from their effective access
// level, the subject's visibility, archived state, and the actor's admin and external status.
// Routes name an ability; nothing else compares access levels.
import type { Actor } from '../auth/actor.ts';
import { ACCESS, VISIBILITY } from './levels.ts';

export type ProjectAbility =
  | 'read_project'
  | 'download_code'
  | 'read_project_member'
  | 'read_statistics'
  | 'push_code'
  | 'admin_project_member'
  | 'admin_project'
  | 'archive_project'
  | 'remove_project'
  | 'change_visibility_level'
  | 'create_project_access_token';

export type GroupAbility =
  | 'read_group'
  | 'read_group_member'
  | 'create_projects'
  | 'create_subgroup'
  | 'admin_group_member'
  | 'admin_group'
  | 'remove_group';

export interface ProjectSubject {
  visibility_level: number;
  archived: boolean | number;
}

export interface GroupSubject {
  visibility_level: number;
  /** JSON settings: project_creation_level ('noone' | 'maintainer' | 'developer'), subgroup_creation_level ('owner' | 'maintainer'). */
  project_creation_level: string;
  subgroup_creation_level: string;
}

type Viewer = Pick<Actor, 'isAdmin'> & { user: { external: boolean | number } };

/** Internal subjects are visible to signed-in users who are not external. */
function visibleWithoutMembership(viewer: Viewer | null, visibility: number): boolean {
  if (visibility >= VISIBILITY.public) return true;
  return visibility >= VISIBILITY.internal && viewer !== null && !viewer.user.external;
}

/**
 * `access` is the actor's effective level on the project: direct or inherited from a group, and
 * Owner for the owner of the project's personal namespace.
 */
export function projectAbilities(viewer: Viewer | null, project: ProjectSubject, access: number): Set<ProjectAbility> {
  const can = new Set<ProjectAbility>();
  const admin = viewer?.isAdmin ?? false;
  const level = admin ? ACCESS.OWNER : access;
  const publicAccess = visibleWithoutMembership(viewer, project.visibility_level);
  if (level < ACCESS.GUEST && !publicAccess) return can;
  can.add('read_project').add('read_project_member');
  if (level >= ACCESS.REPORTER || publicAccess) can.add('download_code');
  if (level >= ACCESS.REPORTER) can.add('read_statistics');
  if (level >= ACCESS.DEVELOPER && !project.archived) can.add('push_code');
  if (level >= ACCESS.MAINTAINER) {
    can.add('admin_project').add('archive_project').add('admin_project_member').add('create_project_access_token');
  }
  if (level >= ACCESS.OWNER) can.add('remove_project').add('change_visibility_level');
  return can;
}

/**
 * `access` is the actor's effective level on the group (its own membership or one inherited from
 * an ancestor); `hasProjectAccess` says whether the actor may reach a project inside the group,
 * which lets them see a private group.
 */
export function groupAbilities(viewer: Viewer | null, group: GroupSubject, access: number, hasProjectAccess: boolean): Set<GroupAbility> {
  const can = new Set<GroupAbility>();
  const admin = viewer?.isAdmin ?? false;
  const level = admin ? ACCESS.OWNER : access;
  if (level < ACCESS.GUEST && !visibleWithoutMembership(viewer, group.visibility_level) && !hasProjectAccess) return can;
  can.add('read_group').add('read_group_member');
  const projectMin = group.project_creation_level === 'noone' ? Infinity : group.project_creation_level === 'maintainer' ? ACCESS.MAINTAINER : ACCESS.DEVELOPER;
  if (level >= projectMin || admin) can.add('create_projects');
  const subgroupMin = group.subgroup_creation_level === 'maintainer' ? ACCESS.MAINTAINER : ACCESS.OWNER;
  if (level >= subgroupMin) can.add('create_subgroup');
  if (level >= ACCESS.OWNER) can.add('admin_group').add('admin_group_member').add('remove_group');
  return can;
}
