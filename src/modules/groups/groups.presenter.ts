// Pure row → entity functions for groups. Lists pass in what they preloaded (custom attributes,
// statistics); the detail form receives its projects already presented.
import { visibilityName } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import type { ApplicationSettings } from '../../domain/settings/application-settings.ts';
import { GROUP_CREATION_LEVELS, NAMESPACE_SETTINGS, type NamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { groupWebUrl } from '../../domain/urls.ts';
import type { CustomAttribute } from '../custom-attributes/custom-attributes.schemas.ts';
import { EMPTY_STORAGE_STATISTICS } from '../projects/projects.presenter.ts';
import type { Project } from '../projects/projects.schemas.ts';
import type { Group, GroupDetail, GroupStatistics } from './groups.schemas.ts';

export interface GroupView {
  baseUrl: string;
  /** The groups' settings (a group not in it reads as the defaults). */
  settings: ReadonlyMap<number, NamespaceSettings>;
  /** What applies where a group sets nothing of its own. */
  instance: Pick<ApplicationSettings, 'default_branch_protection'>;
  /** Present only when custom attributes were asked for. */
  customAttributes?: ReadonlyMap<number, CustomAttribute[]>;
  /** Present only when statistics were asked for. */
  statistics?: ReadonlyMap<number, GroupStatistics>;
}

/** LFS is on for groups that do not turn it off (the platform's lfs.enabled). */
const INSTANCE_LFS_ENABLED = true;

const settingsOf = (row: NamespaceRow, view: GroupView) => view.settings.get(row.id) ?? NAMESPACE_SETTINGS.defaults;

export function presentGroup(row: NamespaceRow, view: GroupView): Group {
  const s = settingsOf(row, view);
  const group: Group = {
    id: row.id,
    web_url: groupWebUrl(view.baseUrl, row.full_path),
    name: row.name,
    path: row.path,
    description: row.description,
    visibility: visibilityName(row.visibility_level),
    ...GROUP_CREATION_LEVELS.present(GROUP_CREATION_LEVELS.read(row)),
    ...NAMESPACE_SETTINGS.present(s),
    lfs_enabled: s.lfs_enabled ?? INSTANCE_LFS_ENABLED,
    default_branch_protection: s.default_branch_protection ?? view.instance.default_branch_protection,
    avatar_url: null,
    request_access_enabled: row.request_access_enabled,
    full_name: row.full_name,
    full_path: row.full_path,
    created_at: row.created_at,
    parent_id: row.parent_id,
  };
  if (view.customAttributes) group.custom_attributes = view.customAttributes.get(row.id) ?? [];
  if (view.statistics) group.statistics = view.statistics.get(row.id) ?? EMPTY_STORAGE_STATISTICS;
  return group;
}

export interface GroupDetailParts {
  projects: Project[];
  /** GET /groups/:id shows the runners token to those who administer the group; null leaves it out. */
  runnersToken: string | null;
}

export function presentGroupDetail(row: NamespaceRow, view: GroupView, parts: GroupDetailParts): GroupDetail {
  // Group and project sharing do not exist yet: nothing is shared with the group or into it.
  const detail: Omit<GroupDetail, 'projects' | 'shared_projects'> = { ...presentGroup(row, view), shared_with_groups: [] };
  if (parts.runnersToken !== null) detail.runners_token = parts.runnersToken;
  if (row.parent_id === null) detail.prevent_sharing_groups_outside_hierarchy = settingsOf(row, view).prevent_sharing_groups_outside_hierarchy;
  return { ...detail, projects: parts.projects, shared_projects: [] };
}
