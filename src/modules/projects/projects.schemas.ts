// Projects (spec Part 2 §2.1, §4.1): the entity ladder (simple → full → with permissions) and
// the parameters of every projects route.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { CustomAttributeEntity } from '../custom-attributes/custom-attributes.schemas.ts';
import { NamespaceBasicEntity } from '../namespaces/namespaces.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';
import type { EntityOf } from '../../domain/settings/declare.ts';
import { PROJECT_CI_CD_SETTINGS, PROJECT_FEATURES, PROJECT_SETTINGS } from '../../domain/settings/project-settings.ts';

// ---- Entities -------------------------------------------------------------------------------------

/** The platform's UserBasic, plus created_at which the spec's owner {id, name, created_at} names. */
export const ProjectOwnerEntity = Entity({ ...userBasicFields, created_at: Timestamp });

/** Entities::ProjectIdentity: what every project entity starts with, and what others nest. */
export const projectIdentityFields = {
  id: Type.Integer(),
  description: Nullable(Type.String()),
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  created_at: Timestamp,
};

export const ProjectIdentityEntity = Entity(projectIdentityFields);

const simple = {
  ...projectIdentityFields,
  // Only for callers who may download the code.
  default_branch: Type.Optional(Nullable(Type.String())),
  tag_list: Type.Array(Type.String()),
  topics: Type.Array(Type.String()),
  ssh_url_to_repo: Type.String(),
  http_url_to_repo: Type.String(),
  web_url: Type.String(),
  readme_url: Nullable(Type.String()),
  // Only with GET /projects/:id?license=true.
  license_url: Type.Optional(Nullable(Type.String())),
  license: Type.Optional(Nullable(Entity({ key: Type.String(), name: Type.String(), nickname: Nullable(Type.String()), html_url: Nullable(Type.String()), source_url: Nullable(Type.String()) }))),
  avatar_url: Nullable(Type.String()),
  forks_count: Type.Integer(),
  star_count: Type.Integer(),
  last_activity_at: Timestamp,
  namespace: NamespaceBasicEntity,
  custom_attributes: Type.Optional(Type.Array(CustomAttributeEntity)),
};

/** BasicProjectDetails: anonymous callers and `simple=true`. */
export const ProjectSimpleEntity = Entity(simple);

/** Storage sizes in bytes: a project's own, or summed over a group's projects. */
export const storageStatisticsFields = {
  storage_size: Type.Integer(),
  repository_size: Type.Integer(),
  wiki_size: Type.Integer(),
  lfs_objects_size: Type.Integer(),
  job_artifacts_size: Type.Integer(),
  pipeline_artifacts_size: Type.Integer(),
  packages_size: Type.Integer(),
  snippets_size: Type.Integer(),
  uploads_size: Type.Integer(),
};

export const ProjectStatisticsEntity = Entity({ commit_count: Type.Integer(), ...storageStatisticsFields });

const Links = Entity({
  self: Type.String(),
  issues: Type.Optional(Type.String()),
  merge_requests: Type.Optional(Type.String()),
  repo_branches: Type.String(),
  labels: Type.String(),
  events: Type.String(),
  members: Type.String(),
});

export const SharedGroupEntity = Entity({
  group_id: Type.Integer(),
  group_name: Type.String(),
  group_full_path: Type.String(),
  group_access_level: Type.Integer(),
  expires_at: Nullable(Type.String()),
});

const fullBase = {
  ...simple,
  container_registry_image_prefix: Type.String(),
  _links: Links,
  empty_repo: Type.Boolean(),
  archived: Type.Boolean(),
  visibility: Literals(['private', 'internal', 'public']),
  // Only for projects in a personal namespace.
  owner: Type.Optional(ProjectOwnerEntity),
  // Whether each feature is open to the caller.
  issues_enabled: Type.Boolean(),
  merge_requests_enabled: Type.Boolean(),
  wiki_enabled: Type.Boolean(),
  jobs_enabled: Type.Boolean(),
  snippets_enabled: Type.Boolean(),
  container_registry_enabled: Type.Boolean(),
  service_desk_address: Nullable(Type.String()),
  can_create_merge_request_in: Type.Boolean(),
  creator_id: Nullable(Type.Integer()),
  import_status: Type.String(),
  import_error: Nullable(Type.String()),
  // When issues are open to the caller.
  open_issues_count: Type.Optional(Type.Integer()),
  // For callers who may administer the project, on single-project answers (as import_error and build_git_strategy).
  runners_token: Type.Optional(Type.String()),
  shared_with_groups: Type.Array(SharedGroupEntity),
  statistics: Type.Optional(ProjectStatisticsEntity),
  // Only for administrators.
  repository_storage: Type.Optional(Type.String()),
  marked_for_deletion_at: Nullable(Type.String()),
  marked_for_deletion_on: Nullable(Type.String()),
};

/** The settings, as domain/settings/project-settings declares them. */
const settingFields = { ...PROJECT_FEATURES.entity, ...PROJECT_CI_CD_SETTINGS.entity, ...PROJECT_SETTINGS.entity };
type SettingFields = EntityOf<typeof PROJECT_FEATURES.specs> & EntityOf<typeof PROJECT_CI_CD_SETTINGS.specs> & EntityOf<typeof PROJECT_SETTINGS.specs>;

const full = { ...fullBase, ...settingFields };

/** Entities::Project: answers of writes (create, update, archive, star). */
export const ProjectEntity = Entity(full);

const MemberAccess = Nullable(Entity({ access_level: Type.Integer(), notification_level: Nullable(Type.Integer()) }));

/** ProjectWithAccess: signed-in reads. */
export const ProjectWithAccessEntity = Entity({
  ...full,
  permissions: Entity({ project_access: MemberAccess, group_access: MemberAccess }),
});

export type ProjectIdentity = Static<typeof ProjectIdentityEntity>;
export type ProjectSimple = Static<typeof ProjectSimpleEntity>;
// Computed in parts: TypeBox's Static of the whole object is too deep for the compiler.
const ProjectBaseEntity = Entity(fullBase);
export type Project = Static<typeof ProjectBaseEntity> & SettingFields;
export type ProjectWithAccess = Project & { permissions: Static<typeof ProjectWithAccessEntity.properties.permissions> };
export type ProjectStatistics = Static<typeof ProjectStatisticsEntity>;

// ---- Parameters -------------------------------------------------------------------------------

export const ProjectIdParams = Params({ id: IdOrPath });

export const ORDER_COLUMNS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'similarity'] as const;
/** Orders by statistics columns, for administrators only; others get the default order. */
export const STATISTICS_ORDERS = ['storage_size', 'repository_size', 'wiki_size', 'packages_size'] as const;

const sortParams = {
  order_by: Type.Optional(OneOf([...ORDER_COLUMNS, ...STATISTICS_ORDERS], { default: 'created_at' })),
  sort: Type.Optional(OneOf(['asc', 'desc'], { default: 'desc' })),
};

const filterParams = {
  archived: Type.Optional(Bool()),
  visibility: Type.Optional(OneOf(['private', 'internal', 'public'])),
  search: Type.Optional(Type.String()),
  search_namespaces: Type.Optional(Bool()),
  owned: Type.Optional(Bool({ default: false })),
  starred: Type.Optional(Bool({ default: false })),
  membership: Type.Optional(Bool({ default: false })),
  with_issues_enabled: Type.Optional(Bool({ default: false })),
  with_merge_requests_enabled: Type.Optional(Bool({ default: false })),
  with_programming_language: Type.Optional(Type.String()),
  min_access_level: Type.Optional(Type.Integer({ enum: [ACCESS.GUEST, ACCESS.REPORTER, ACCESS.DEVELOPER, ACCESS.MAINTAINER, ACCESS.OWNER] })),
  id_after: Type.Optional(Type.Integer()),
  id_before: Type.Optional(Type.Integer()),
  last_activity_after: Type.Optional(Type.String({ format: 'date-time' })),
  last_activity_before: Type.Optional(Type.String({ format: 'date-time' })),
  repository_storage: Type.Optional(Type.String()),
  topic: Type.Optional(CommaList(Type.String())),
};

const collectionParams = {
  ...PageParams,
  ...sortParams,
  ...filterParams,
  simple: Type.Optional(Bool({ default: false })),
  statistics: Type.Optional(Bool({ default: false })),
  with_custom_attributes: Type.Optional(Bool({ default: false })),
  custom_attributes: Type.Optional(Type.Record(Type.String(), Type.String())),
};

export const ListProjectsQuery = Params(collectionParams);
export type ListProjectsQuery = Static<typeof ListProjectsQuery>;

export const UserProjectsParams = Params({ user_id: Type.String() });
export const UserProjectsQuery = ListProjectsQuery;

export const GroupProjectsQuery = Params({
  ...collectionParams,
  include_subgroups: Type.Optional(Bool({ default: false })),
  with_shared: Type.Optional(Bool({ default: true })),
  with_security_reports: Type.Optional(Bool({ default: false })),
});
export type GroupProjectsQuery = Static<typeof GroupProjectsQuery>;

export const ShowProjectQuery = Params({
  statistics: Type.Optional(Bool({ default: false })),
  license: Type.Optional(Bool({ default: false })),
  with_custom_attributes: Type.Optional(Bool({ default: false })),
});
export type ShowProjectQuery = Static<typeof ShowProjectQuery>;

/** Parameters of both create and update that are no setting of their own. */
const projectParams = {
  description: Type.Optional(Type.String()),
  visibility: Type.Optional(OneOf(['private', 'internal', 'public'])),
  // The features' former switches: on is 'enabled', off 'disabled'; an access level given too wins.
  issues_enabled: Type.Optional(Bool()),
  merge_requests_enabled: Type.Optional(Bool()),
  wiki_enabled: Type.Optional(Bool()),
  jobs_enabled: Type.Optional(Bool()),
  snippets_enabled: Type.Optional(Bool()),
  container_registry_enabled: Type.Optional(Bool()),
  tag_list: Type.Optional(CommaList(Type.String())),
  topics: Type.Optional(CommaList(Type.String())),
  repository_storage: Type.Optional(Type.String()),
} satisfies Record<string, TSchema>;

/** The settings a route accepts (the platform's optional_project_params), from their declarations. */
const settingParams = <R extends 'create' | 'update'>(route: R) => ({
  ...PROJECT_FEATURES.params(route),
  ...PROJECT_CI_CD_SETTINGS.params(route),
  ...PROJECT_SETTINGS.params(route),
});

export const CreateProjectBody = Params(
  {
    name: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    namespace_id: Type.Optional(Type.Integer()),
    default_branch: Type.Optional(Type.String()),
    ...projectParams,
    ...settingParams('create'),
  },
  { 'x-at-least-one-of': [['name', 'path']] },
);
export type CreateProjectBody = Static<typeof CreateProjectBody>;

export const CreateUserProjectParams = Params({ user_id: Type.Integer() });
export const CreateUserProjectBody = Params({
  name: Type.String(),
  path: Type.Optional(Type.String()),
  namespace_id: Type.Optional(Type.Integer()),
  default_branch: Type.Optional(Type.String()),
  ...projectParams,
  ...settingParams('create'),
});

const updateOnly = {
  name: Type.Optional(Type.String()),
  default_branch: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
};

/** The platform's update_params_at_least_one_of, in its order. */
export const UPDATE_KEYS = [
  'allow_merge_on_skipped_pipeline',
  'analytics_access_level',
  'autoclose_referenced_issues',
  'auto_devops_enabled',
  'auto_devops_deploy_strategy',
  'auto_cancel_pending_pipelines',
  'build_coverage_regex',
  'build_git_strategy',
  'build_timeout',
  'builds_access_level',
  'ci_config_path',
  'ci_default_git_depth',
  'ci_forward_deployment_enabled',
  'container_registry_access_level',
  'container_registry_enabled',
  'default_branch',
  'description',
  'emails_disabled',
  'forking_access_level',
  'issues_access_level',
  'lfs_enabled',
  'merge_requests_access_level',
  'merge_method',
  'name',
  'only_allow_merge_if_all_discussions_are_resolved',
  'only_allow_merge_if_pipeline_succeeds',
  'pages_access_level',
  'path',
  'printing_merge_request_link_enabled',
  'public_builds',
  'remove_source_branch_after_merge',
  'repository_access_level',
  'request_access_enabled',
  'resolve_outdated_diff_discussions',
  'restrict_user_defined_variables',
  'shared_runners_enabled',
  'snippets_access_level',
  'squash_option',
  'tag_list',
  'topics',
  'visibility',
  'wiki_access_level',
  'suggestion_commit_message',
  'repository_storage',
  'packages_enabled',
  'service_desk_enabled',
  'keep_latest_artifact',
  'issues_enabled',
  'jobs_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'snippets_enabled',
];

export const UpdateProjectBody = Params({ ...projectParams, ...settingParams('update'), ...updateOnly }, { 'x-at-least-one-of': [UPDATE_KEYS] });
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

export const ProjectUsersQuery = Params({
  ...PageParams,
  search: Type.Optional(Type.String()),
  skip_users: Type.Optional(CommaList(Type.Integer())),
});
export type ProjectUsersQuery = Static<typeof ProjectUsersQuery>;
