// Pure row → entity functions for groups. Lists pass in what they preloaded (custom attributes,
// statistics); the detail form receives its projects already presented.
import { groupSettings } from '../../core/access/loaders.ts';
import { visibilityName } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { groupWebUrl } from '../../domain/urls.ts';
import type { CustomAttribute } from '../custom-attributes/custom-attributes.schemas.ts';
import { EMPTY_STORAGE_STATISTICS } from '../projects/projects.presenter.ts';
import type { Project } from '../projects/projects.schemas.ts';
import type { Group, GroupDetail, GroupStatistics } from './groups.schemas.ts';

/** Settings of a group as the entity shows them, with the platform's defaults for unset ones. */
export interface GroupSettings {
  project_creation_level: 'noone' | 'maintainer' | 'developer';
  subgroup_creation_level: 'owner' | 'maintainer';
  share_with_group_lock: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  auto_devops_enabled: boolean | null;
  emails_disabled: boolean | null;
  mentions_disabled: boolean | null;
  /** Unset means the instance default: enabled. */
  lfs_enabled: boolean | null;
  /** Unset means the instance default: fully protected (2). */
  default_branch_protection: number | null;
  shared_runners_setting: string;
  prevent_sharing_groups_outside_hierarchy: boolean;
  runners_token: string | null;
}

const DEFAULT_BRANCH_PROTECTION = 2;

const boolOrNull = (v: unknown): boolean | null => (typeof v === 'boolean' ? v : null);

export function readGroupSettings(row: Pick<NamespaceRow, 'settings'>): GroupSettings {
  const s = groupSettings(row);
  return {
    project_creation_level: s.project_creation_level as GroupSettings['project_creation_level'],
    subgroup_creation_level: s.subgroup_creation_level as GroupSettings['subgroup_creation_level'],
    share_with_group_lock: s.share_with_group_lock === true,
    require_two_factor_authentication: s.require_two_factor_authentication === true,
    two_factor_grace_period: typeof s.two_factor_grace_period === 'number' ? s.two_factor_grace_period : 48,
    auto_devops_enabled: boolOrNull(s.auto_devops_enabled),
    emails_disabled: boolOrNull(s.emails_disabled),
    mentions_disabled: boolOrNull(s.mentions_disabled),
    lfs_enabled: boolOrNull(s.lfs_enabled),
    default_branch_protection: typeof s.default_branch_protection === 'number' ? s.default_branch_protection : null,
    shared_runners_setting: typeof s.shared_runners_setting === 'string' ? s.shared_runners_setting : 'enabled',
    prevent_sharing_groups_outside_hierarchy: s.prevent_sharing_groups_outside_hierarchy === true,
    runners_token: typeof s.runners_token === 'string' ? s.runners_token : null,
  };
}

export interface GroupView {
  baseUrl: string;
  /** Present only when custom attributes were asked for. */
  customAttributes?: ReadonlyMap<number, CustomAttribute[]>;
  /** Present only when statistics were asked for. */
  statistics?: ReadonlyMap<number, GroupStatistics>;
}

export function presentGroup(row: NamespaceRow, view: GroupView): Group {
  const s = readGroupSettings(row);
  const group: Group = {
    id: row.id,
    web_url: groupWebUrl(view.baseUrl, row.full_path),
    name: row.name,
    path: row.path,
    description: row.description,
    visibility: visibilityName(row.visibility_level),
    share_with_group_lock: s.share_with_group_lock,
    require_two_factor_authentication: s.require_two_factor_authentication,
    two_factor_grace_period: s.two_factor_grace_period,
    project_creation_level: s.project_creation_level,
    auto_devops_enabled: s.auto_devops_enabled,
    subgroup_creation_level: s.subgroup_creation_level,
    emails_disabled: s.emails_disabled,
    mentions_disabled: s.mentions_disabled,
    lfs_enabled: s.lfs_enabled ?? true,
    default_branch_protection: s.default_branch_protection ?? DEFAULT_BRANCH_PROTECTION,
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
  if (row.parent_id === null) detail.prevent_sharing_groups_outside_hierarchy = readGroupSettings(row).prevent_sharing_groups_outside_hierarchy;
  return { ...detail, projects: parts.projects, shared_projects: [] };
}
