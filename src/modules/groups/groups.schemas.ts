// Groups: the entity ladder (Group → GroupDetail) and the parameters of every groups route.
import { type Static, Type } from '@sinclair/typebox';
import { GROUP_ACCESS_LEVELS, VISIBILITY_NAMES } from '../../core/access/levels.ts';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';
import type { EntityOf } from '../../domain/settings/declare.ts';
import { GROUP_CREATION_LEVELS, NAMESPACE_SETTINGS } from '../../domain/settings/namespace-settings.ts';
import { type Project, ProjectEntity, SharedGroupEntity, storageStatisticsFields } from '../projects/projects.schemas.ts';

// ---- Entities -------------------------------------------------------------------------------------

/** The storage of the group's own projects, summed. */
export const GroupStatisticsEntity = Entity(storageStatisticsFields);

const groupBase = {
  id: Type.Integer(),
  web_url: Type.String(),
  name: Type.String(),
  path: Type.String(),
  description: Type.String(),
  visibility: Literals(VISIBILITY_NAMES),
  // What applies: the group's own setting, else the instance's.
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

/** The settings, as domain/settings/namespace-settings declares them. */
const group = { ...groupBase, ...GROUP_CREATION_LEVELS.entity, ...NAMESPACE_SETTINGS.entity };
type SettingFields = EntityOf<typeof GROUP_CREATION_LEVELS.specs> & EntityOf<typeof NAMESPACE_SETTINGS.specs>;

/** The list form, and GET /groups/:id?with_projects=false. */
export const GroupEntity = Entity(group);

const detailBase = {
  ...groupBase,
  shared_with_groups: Type.Array(SharedGroupEntity),
  // Owners and administrators, on GET /groups/:id only.
  runners_token: Type.Optional(Type.String()),
  // Top-level groups only.
  prevent_sharing_groups_outside_hierarchy: Type.Optional(Type.Boolean()),
};

/** GET /groups/:id, and the answer to creation and update. */
export const GroupDetailEntity = Entity({
  ...detailBase,
  ...GROUP_CREATION_LEVELS.entity,
  ...NAMESPACE_SETTINGS.entity,
  projects: Type.Array(ProjectEntity),
  shared_projects: Type.Array(ProjectEntity),
});

// Computed in parts: TypeBox's Static of the whole objects is too deep for the compiler.
const GroupBase = Entity(groupBase);
const GroupDetailBase = Entity(detailBase);
export type Group = Static<typeof GroupBase> & SettingFields;
export type GroupDetail = Static<typeof GroupDetailBase> & SettingFields & { projects: Project[]; shared_projects: Project[] };
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

/** Parameters of creation and update that are no setting of their own. */
const groupParams = {
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(OneOf(VISIBILITY_NAMES)),
  avatar: Type.Optional(Type.Unknown()),
  request_access_enabled: Type.Optional(Bool()),
};

export const CreateGroupBody = Params({
  name: Type.String(),
  path: Type.String(),
  parent_id: Type.Optional(Type.Integer()),
  ...groupParams,
  ...GROUP_CREATION_LEVELS.params('create'),
  ...NAMESPACE_SETTINGS.params('create'),
});
export type CreateGroupBody = Static<typeof CreateGroupBody>;

export const UpdateGroupBody = Params({
  name: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  ...groupParams,
  ...GROUP_CREATION_LEVELS.params('update'),
  ...NAMESPACE_SETTINGS.params('update'),
});
export type UpdateGroupBody = Static<typeof UpdateGroupBody>;
