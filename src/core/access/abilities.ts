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
  | 'rename_project'
  | 'create_merge_request_in'
  | 'create_note'
  | 'remove_project'
  | 'change_visibility_level'
  | 'create_project_access_token'
  | 'admin_protected_branch'
  | 'manage_protected_tags'
  | 'read_label'
  | 'admin_label'
  | 'admin_milestone'
  | 'read_release'
  | 'create_release'
  | 'update_release'
  | 'destroy_release'
  | 'read_cluster'
  | 'add_cluster'
  | 'update_cluster'
  | 'admin_cluster'
  | 'read_pages'
  | 'update_pages'
  | 'read_security_resource'
  | 'admin_vulnerability'
  | 'read_dependencies'
  | 'read_software_license_policy'
  | 'admin_software_license_policy'
  | 'read_alert_management_alert'
  | 'update_alert_management_alert'
  | 'read_sentry_issue'
  | 'update_sentry_issue'
  | 'admin_operations'
  | 'read_package'
  | 'create_package'
  | 'destroy_package'
  | 'read_wiki'
  | 'create_wiki'
  | 'admin_wiki';

export type GroupAbility =
  | 'read_group'
  | 'read_group_member'
  | 'create_projects'
  | 'create_subgroup'
  | 'admin_group_member'
  | 'admin_group'
  | 'remove_group'
  | 'read_namespace'
  | 'admin_namespace'
  | 'read_label'
  | 'admin_label'
  | 'admin_milestone'
  | 'read_wiki'
  | 'create_wiki'
  | 'admin_wiki';

export interface ProjectSubject {
  visibility_level: number;
  archived: boolean;
}

export interface GroupSubject {
  visibility_level: number;
  /** 'noone' | 'maintainer' | 'developer'. */
  project_creation_level: string;
  /** 'owner' | 'maintainer'. */
  subgroup_creation_level: string;
}

/** What the ability table reads of a group: columns of its namespace row. */
export const groupSubject = (row: GroupSubject): GroupSubject => ({
  visibility_level: row.visibility_level,
  project_creation_level: row.project_creation_level,
  subgroup_creation_level: row.subgroup_creation_level,
});

type Viewer = Pick<Actor, 'isAdmin'> & { user: { external: boolean; user_type?: string } };

/** The role from which a member may download the code of a project not visible without membership. */
export const DOWNLOAD_CODE_MINIMUM = ACCESS.REPORTER;

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
  // Release abilities also need the repository feature, which the releases routes check.
  can.add('read_project').add('read_project_member').add('read_label').add('read_release');
  if (level >= DOWNLOAD_CODE_MINIMUM || publicAccess) can.add('download_code');
  if (level >= ACCESS.REPORTER) can.add('read_statistics');
  // The errors an error tracker gathered are for reporters and up, who may also resolve or ignore
  // them (14.x gives update_sentry_issue to Reporters; later releases to Developers); its settings
  // and keys are for maintainers.
  if (level >= ACCESS.REPORTER) can.add('read_sentry_issue').add('update_sentry_issue');
  // Packages: read by reporters, and by every reader of a public or internal project; published by
  // developers and removed by maintainers (release 14.x), neither in an archived project.
  if (level >= ACCESS.REPORTER || publicAccess) can.add('read_package');
  if (level >= ACCESS.DEVELOPER && !project.archived) can.add('create_package');
  if (level >= ACCESS.MAINTAINER && !project.archived) can.add('destroy_package');
  // An archived project is read-only: its labels too.
  if (level >= ACCESS.REPORTER && !project.archived) can.add('admin_label');
  // Milestones are read while issues or merge requests are open to the reader, which the milestones routes check.
  if (level >= ACCESS.DEVELOPER && !project.archived) can.add('push_code').add('admin_milestone').add('create_release').add('update_release').add('destroy_release');
  // Any signed-in reader may open a merge request into, and comment on, a project that is not archived.
  if (viewer && (level >= ACCESS.GUEST || publicAccess) && !project.archived) can.add('create_merge_request_in').add('create_note');
  // Alerts from monitoring tools are read from Developer up; their integrations are managed from Maintainer up.
  // Changing an alert (status, assignees, a to-do of it) takes the same role (14.x update_alert_management_alert).
  if (level >= ACCESS.DEVELOPER) can.add('read_alert_management_alert').add('update_alert_management_alert');
  if (level >= ACCESS.MAINTAINER) {
    can.add('admin_project').add('admin_project_member').add('admin_operations');
    // A project access token may not mint further tokens.
    if (viewer?.user.user_type !== 'project_bot') can.add('create_project_access_token');
    // The protected branches and tags APIs ask admin_project; the names say what is managed.
    can.add('admin_protected_branch').add('manage_protected_tags');
    // Release 14.x keeps an archived project's clusters from being changed or removed, not from
    // being added (its read-only rule names create_cluster, which the API does not ask).
    can.add('read_cluster').add('add_cluster');
    if (!project.archived) can.add('update_cluster').add('admin_cluster');
    // Release 14.x counts pages among the features an archived project keeps read-only.
    can.add('read_pages');
    if (!project.archived) can.add('update_pages');
  }
  // The security dashboard (vulnerabilities, their findings) is for Developers and up (14.x
  // read_security_resource); acting on a vulnerability needs the same role.
  if (level >= ACCESS.DEVELOPER) can.add('read_security_resource').add('admin_vulnerability');
  // The dependency list needs the code: Reporters of a private project, every reader of a public one.
  if (viewer && can.has('download_code')) can.add('read_dependencies');
  // License policies are read by Reporters, and by anyone who sees the project without membership.
  if (level >= ACCESS.REPORTER || publicAccess) can.add('read_software_license_policy');
  if (level >= ACCESS.MAINTAINER) can.add('admin_software_license_policy');
  // Wiki pages (14.x): read by every reader, written by Developers, deleted by Maintainers; an
  // archived project's wiki is read-only. The wiki's feature level is the wikis routes' to check.
  can.add('read_wiki');
  if (level >= ACCESS.DEVELOPER && !project.archived) can.add('create_wiki');
  if (level >= ACCESS.MAINTAINER && !project.archived) can.add('admin_wiki');
  // Release 14.x keeps renaming, archiving, visibility changes and removal to owners.
  if (level >= ACCESS.OWNER) can.add('remove_project').add('change_visibility_level').add('rename_project').add('archive_project');
  return can;
}

/**
 * Whether a project feature (issues, merge_requests, repository, …) at its access level is open to
 * the viewer: 'disabled' to nobody, 'enabled' and 'public' to everyone who reads the project,
 * 'private' to members from the feature's minimum role (Reporter for merge requests and the
 * container registry, and for the repository of a private project; Guest otherwise) and admins.
 */
export function projectFeatureAvailable(
  viewer: Viewer | null,
  project: Pick<ProjectSubject, 'visibility_level'>,
  access: number,
  feature: string,
  level: string,
): boolean {
  if (level === 'disabled') return false;
  if (level !== 'private') return true;
  if (viewer?.isAdmin) return true;
  return access >= privateFeatureMinimum(project, feature);
}

/** The lowest role that reaches a feature set to 'private'. */
export function privateFeatureMinimum(project: Pick<ProjectSubject, 'visibility_level'>, feature: string): number {
  if (feature === 'merge_requests' || feature === 'container_registry') return ACCESS.REPORTER;
  if (feature === 'repository' && project.visibility_level < VISIBILITY.internal) return ACCESS.REPORTER;
  return ACCESS.GUEST;
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
  can.add('read_group').add('read_group_member').add('read_label');
  // Release 14.x lets a group's reporters manage its labels.
  if (level >= ACCESS.REPORTER) can.add('admin_label');
  // The spec (Part 2 §4.4) asks the Developer role in the group, as release 14.0 did.
  if (level >= ACCESS.DEVELOPER) can.add('admin_milestone');
  // Group wikis (premium, 14.x GroupPolicy): read by the group's readers, written by its
  // Developers, pages deleted by its Maintainers.
  can.add('read_wiki');
  if (level >= ACCESS.DEVELOPER) can.add('create_wiki');
  if (level >= ACCESS.MAINTAINER) can.add('admin_wiki');
  const projectMin = group.project_creation_level === 'noone' ? Infinity : group.project_creation_level === 'maintainer' ? ACCESS.MAINTAINER : ACCESS.DEVELOPER;
  if (level >= projectMin || admin) can.add('create_projects');
  const subgroupMin = group.subgroup_creation_level === 'maintainer' ? ACCESS.MAINTAINER : ACCESS.OWNER;
  if (level >= subgroupMin) can.add('create_subgroup');
  // The group as a namespace is for its members (here or above) alone, whatever its visibility.
  if (level >= ACCESS.GUEST) can.add('read_namespace');
  if (level >= ACCESS.OWNER) can.add('admin_group').add('admin_group_member').add('remove_group').add('admin_namespace');
  return can;
}

export type GlobalAbility = 'create_group';

/** Instance-wide abilities: creating a top-level group follows the user's own can_create_group flag. */
export function globalAbilities(viewer: { user: { can_create_group: boolean } } | null): Set<GlobalAbility> {
  const can = new Set<GlobalAbility>();
  if (viewer?.user.can_create_group) can.add('create_group');
  return can;
}

export type NamespaceAbility = 'read_namespace' | 'admin_namespace';

/** A personal namespace is read and administered by its owner and administrators only. */
export function personalNamespaceAbilities(
  viewer: (Pick<Actor, 'isAdmin'> & { user: { id: number } }) | null,
  namespace: { owner_id: number | null },
): Set<NamespaceAbility> {
  const can = new Set<NamespaceAbility>();
  if (viewer && (viewer.isAdmin || viewer.user.id === namespace.owner_id)) can.add('read_namespace').add('admin_namespace');
  return can;
}
