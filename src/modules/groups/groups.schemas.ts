// Groups: the entity ladder (Group → GroupDetail) and the parameters of every groups route.
import { type Static, Type } from '@sinclair/typebox';
import { GROUP_ACCESS_LEVELS, VISIBILITY_NAMES } from '../../core/access/levels.ts';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';
import { ProjectEntity, SharedGroupEntity, storageStatisticsFields } from '../projects/projects.schemas.ts';

// ---- Entities -------------------------------------------------------------------------------------

export const PROJECT_CREATION_LEVELS = ['noone', 'maintainer', 'developer'] as const;
export const SUBGROUP_CREATION_LEVELS = ['owner', 'maintainer'] as const;
export const SHARED_RUNNERS_SETTINGS = ['disabled_and_unoverridable', 'disabled_with_override', 'enabled'] as const;
/** 0 unprotected, 1 developers may push, 2 fully protected, 3 developers may merge. */
export const BRANCH_PROTECTIONS = [0, 1, 2, 3] as const;

/** The storage of the group's own projects, summed. */
export const GroupStatisticsEntity = Entity(storageStatisticsFields);

const group = {
  id: Type.Integer(),
  web_url: Type.String(),
  name: Type.String(),
  path: Type.String(),
  description: Type.String(),
  visibility: Literals(VISIBILITY_NAMES),
  share_with_group_lock: Type.Boolean(),
  require_two_factor_authentication: Type.Boolean(),
  two_factor_grace_period: Type.Integer(),
  project_creation_level: Literals(PROJECT_CREATION_LEVELS),
  auto_devops_enabled: Nullable(Type.Boolean()),
  subgroup_creation_level: Literals(SUBGROUP_CREATION_LEVELS),
  emails_disabled: Nullable(Type.Boolean()),
  mentions_disabled: Nullable(Type.Boolean()),
  lfs_enabled: Type.Boolean(),
  default_branch_protection: Type.Integer(),
  avatar_url: Nullable(Type.String()),
  request_access_enabled: Type.Boolean(),
  full_name: Type.String(),
  full_path: Type.String(),
  created_at: Timestamp,
  parent_id: Nullable(Type.Integer()),
  // Administrators only, when asked for.
  custom_attributes: Type.Optional(Type.Array(CustomAttributeEntity)),
  statistics: Type.Optional(GroupStatisticsEntity),
};

/** The list form, and GET /groups/:id?with_projects=false. */
export const GroupEntity = Entity(group);

/** GET /groups/:id, and the answer to creation and update. */
export const GroupDetailEntity = Entity({
  ...group,
  shared_with_groups: Type.Array(SharedGroupEntity),
  // Owners and administrators, on GET /groups/:id only.
  runners_token: Type.Optional(Type.String()),
  // Top-level groups only.
  prevent_sharing_groups_outside_hierarchy: Type.Optional(Type.Boolean()),
  projects: Type.Array(ProjectEntity),
  shared_projects: Type.Array(ProjectEntity),
});

export type Group = Static<typeof GroupEntity>;
export type GroupDetail = Static<typeof GroupDetailEntity>;
export type GroupStatistics = Static<typeof GroupStatisticsEntity>;

// ---- Parameters ---------------------------------------------------------------------------------

export const GroupIdParams = Params({ id: IdOrPath });
export type GroupIdParams = Static<typeof GroupIdParams>;

export const ORDER_BY = ['name', 'path', 'id', 'similarity'] as const;

export const ListGroupsQuery = Params({
  ...PageParams,
  statistics: Type.Optional(Bool({ default: false })),
  skip_groups: Type.Optional(CommaList(Type.Integer())),
  all_available: Type.Optional(Bool()),
  search: Type.Optional(Type.String()),
  owned: Type.Optional(Bool({ default: false })),
  order_by: Type.Optional(OneOf(ORDER_BY, { default: 'name' })),
  sort: Type.Optional(OneOf(['asc', 'desc'], { default: 'asc' })),
  min_access_level: Type.Optional(Type.Integer({ enum: [...GROUP_ACCESS_LEVELS] })),
  top_level_only: Type.Optional(Bool()),
  with_custom_attributes: Type.Optional(Bool({ default: false })),
  custom_attributes: Type.Optional(Type.Record(Type.String(), Type.String())),
});
export type ListGroupsQuery = Static<typeof ListGroupsQuery>;

export const ShowGroupQuery = Params({
  with_custom_attributes: Type.Optional(Bool({ default: false })),
  with_projects: Type.Optional(Bool({ default: true })),
});
export type ShowGroupQuery = Static<typeof ShowGroupQuery>;

/** Settings that creation and update share. */
const settings = {
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(OneOf(VISIBILITY_NAMES)),
  avatar: Type.Optional(Type.Unknown()),
  share_with_group_lock: Type.Optional(Bool()),
  require_two_factor_authentication: Type.Optional(Bool()),
  two_factor_grace_period: Type.Optional(Type.Integer()),
  project_creation_level: Type.Optional(OneOf(PROJECT_CREATION_LEVELS)),
  auto_devops_enabled: Type.Optional(Bool()),
  subgroup_creation_level: Type.Optional(OneOf(SUBGROUP_CREATION_LEVELS)),
  emails_disabled: Type.Optional(Bool()),
  mentions_disabled: Type.Optional(Bool()),
  lfs_enabled: Type.Optional(Bool()),
  request_access_enabled: Type.Optional(Bool()),
  default_branch_protection: Type.Optional(Type.Integer({ enum: [...BRANCH_PROTECTIONS] })),
  shared_runners_setting: Type.Optional(OneOf(SHARED_RUNNERS_SETTINGS)),
};

export const CreateGroupBody = Params({
  name: Type.String(),
  path: Type.String(),
  parent_id: Type.Optional(Type.Integer()),
  ...settings,
});
export type CreateGroupBody = Static<typeof CreateGroupBody>;

export const UpdateGroupBody = Params({
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  ...settings,
  prevent_sharing_groups_outside_hierarchy: Type.Optional(Bool()),
});
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;

export type GroupSettingsInput = Pick<CreateGroupBody, Exclude<keyof typeof settings, 'description' | 'visibility' | 'avatar' | 'request_access_enabled'>> & {
  prevent_sharing_groups_outside_hierarchy?: boolean;
};
