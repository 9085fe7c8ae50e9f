// Pure row → entity functions for projects. Everything a page of projects needs beyond its rows
// (namespaces, owners, topics, the viewer's access, statistics) arrives preloaded in a ProjectView
// built by loadProjectView (projects.finder.ts), so a list costs a fixed number of queries.
import { type ProjectAbility, projectAbilities, projectFeatureAvailable } from '../../core/access/abilities.ts';
import { visibilityName } from '../../core/access/levels.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { NamespaceRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { apiUrl, projectWebUrl } from '../../domain/urls.ts';
import { NAMESPACE_BASIC_COLUMNS, presentNamespaceBasic } from '../namespaces/namespaces.presenter.ts';
import type { CustomAttribute } from '../custom-attributes/custom-attributes.schemas.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { Project, ProjectSimple, ProjectStatistics, ProjectWithAccess } from './projects.schemas.ts';
import { type Feature, type FeatureLevel, type ProjectSettings, featureLevel, parseSettings } from './projects.settings.ts';

/** The notification level a membership reports until notification settings exist: 'global'. */
const GLOBAL_NOTIFICATION_LEVEL = 3;

/** The columns of a project's namespace that its entities and their view read. */
export const PROJECT_NAMESPACE_COLUMNS = [...NAMESPACE_BASIC_COLUMNS, 'owner_id', 'traversal_path'] as const;
export type ProjectNamespace = Pick<NamespaceRow, (typeof PROJECT_NAMESPACE_COLUMNS)[number]>;

export interface ProjectView {
  baseUrl: string;
  viewer: Actor | null;
  namespaces: ReadonlyMap<number, ProjectNamespace>;
  /** Owners of the personal namespaces among the projects, by user id. */
  owners: ReadonlyMap<number, UserRow>;
  /** Topic names by project id, sorted. */
  topics: ReadonlyMap<number, string[]>;
  /** The viewer's effective access level by project id (absent: none). */
  access: ReadonlyMap<number, number>;
  /** The viewer's own project membership level by project id. */
  projectMembers: ReadonlyMap<number, number>;
  /** The viewer's highest membership of a group or its ancestors, by group id. */
  groupMembers: ReadonlyMap<number, number>;
  /** Present when statistics were asked for. */
  statistics?: ReadonlyMap<number, ProjectStatistics>;
  /** Present when custom attributes were asked for (the route loads them beside the view). */
  customAttributes?: ReadonlyMap<number, CustomAttribute[]>;
  /** GET /projects/:id?license=true adds license and license_url. */
  license?: boolean;
}

/** simple: BasicProjectDetails; full: Entities::Project; with_access: ProjectWithAccess. */
export type ProjectForm = 'simple' | 'full' | 'with_access';

/** Storage statistics of nothing stored: a project without a statistics row, a group without projects. */
export const EMPTY_STORAGE_STATISTICS: Omit<ProjectStatistics, 'commit_count'> = {
  storage_size: 0,
  repository_size: 0,
  wiki_size: 0,
  lfs_objects_size: 0,
  job_artifacts_size: 0,
  pipeline_artifacts_size: 0,
  packages_size: 0,
  snippets_size: 0,
  uploads_size: 0,
};

const EMPTY_STATISTICS: ProjectStatistics = { commit_count: 0, ...EMPTY_STORAGE_STATISTICS };

/** What the view's viewer may do to one project, and the features open to them. */
function accessOf(row: ProjectRow, view: ProjectView) {
  const access = view.access.get(row.id) ?? 0;
  const can = projectAbilities(view.viewer, row, access);
  return { access, can };
}

/** The host parts of the external URL, parsed once per URL rather than per project. */
const hostsByBaseUrl = new Map<string, { host: string; hostname: string }>();
function hostsOf(baseUrl: string): { host: string; hostname: string } {
  let hosts = hostsByBaseUrl.get(baseUrl);
  if (!hosts) {
    const url = new URL(baseUrl);
    hosts = { host: url.host, hostname: url.hostname };
    hostsByBaseUrl.set(baseUrl, hosts);
  }
  return hosts;
}

// Every form is one object literal with the same keys whatever the caller may see: a key the
// platform leaves out for this caller holds `undefined`, which JSON leaves out too. (Conditional
// spreads made building a page of full projects cost three times as much as serializing it.)

function simpleFields(row: ProjectRow, view: ProjectView, can: Set<ProjectAbility>): ProjectSimple {
  const namespace = view.namespaces.get(row.namespace_id) as ProjectNamespace;
  const topics = view.topics.get(row.id) ?? [];
  const webUrl = projectWebUrl(view.baseUrl, row);
  return {
    id: row.id,
    description: row.description,
    name: row.name,
    name_with_namespace: row.name_with_namespace,
    path: row.path,
    path_with_namespace: row.full_path,
    created_at: row.created_at,
    default_branch: can.has('download_code') ? row.default_branch : undefined,
    tag_list: topics,
    topics,
    ssh_url_to_repo: `git@${hostsOf(view.baseUrl).hostname}:${row.full_path}.git`,
    http_url_to_repo: `${webUrl}.git`,
    web_url: webUrl,
    // Finding a README or a license needs git, which presenters never run.
    readme_url: null,
    license_url: view.license ? null : undefined,
    license: view.license ? null : undefined,
    avatar_url: null,
    // Forks do not exist yet.
    forks_count: 0,
    star_count: row.star_count,
    last_activity_at: row.last_activity_at,
    namespace: presentNamespaceBasic(namespace, view.baseUrl),
    custom_attributes: view.customAttributes ? (view.customAttributes.get(row.id) ?? []) : undefined,
  };
}

function fullFields(row: ProjectRow, view: ProjectView, access: number, can: Set<ProjectAbility>, adminFields: boolean, withPermissions: boolean): Project | ProjectWithAccess {
  const settings: ProjectSettings = parseSettings(row.settings);
  const namespace = view.namespaces.get(row.namespace_id) as ProjectNamespace;
  const readable = can.has('read_project');
  const level = (feature: Feature) => featureLevel(row, settings, feature);
  const available = (feature: Feature, at: FeatureLevel = level(feature)) => readable && projectFeatureAvailable(view.viewer, row, access, feature, at);
  const issuesLevel = level('issues');
  const mergeRequestsLevel = level('merge_requests');
  const issues = available('issues', issuesLevel);
  const mergeRequests = available('merge_requests', mergeRequestsLevel);
  const self = apiUrl(view.baseUrl, `/projects/${row.id}`);
  const owner = namespace.type === 'User' && namespace.owner_id !== null ? view.owners.get(namespace.owner_id) : undefined;
  const admin = adminFields && can.has('admin_project');
  const statistics = view.statistics && can.has('read_statistics') ? (view.statistics.get(row.id) ?? EMPTY_STATISTICS) : undefined;
  const simple = simpleFields(row, view, can);
  return {
    ...simple,
    container_registry_image_prefix: `${hostsOf(view.baseUrl).host}/${row.full_path.toLowerCase()}`,
    _links: {
      self,
      issues: issues ? `${self}/issues` : undefined,
      merge_requests: mergeRequests ? `${self}/merge_requests` : undefined,
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
    },
    packages_enabled: settings.packages_enabled,
    empty_repo: row.empty_repo,
    archived: row.archived,
    visibility: visibilityName(row.visibility_level),
    owner: owner ? { ...userBasicFields(owner, view.baseUrl), created_at: owner.created_at } : undefined,
    resolve_outdated_diff_discussions: settings.resolve_outdated_diff_discussions,
    issues_enabled: issues,
    merge_requests_enabled: mergeRequests,
    wiki_enabled: available('wiki'),
    jobs_enabled: available('builds'),
    snippets_enabled: available('snippets'),
    container_registry_enabled: available('container_registry'),
    service_desk_enabled: settings.service_desk_enabled,
    service_desk_address: null,
    can_create_merge_request_in: can.has('create_merge_request_in') && mergeRequests && available('repository'),
    issues_access_level: issuesLevel,
    repository_access_level: level('repository'),
    merge_requests_access_level: mergeRequestsLevel,
    forking_access_level: level('forking'),
    wiki_access_level: level('wiki'),
    builds_access_level: level('builds'),
    snippets_access_level: level('snippets'),
    pages_access_level: level('pages'),
    operations_access_level: level('operations'),
    analytics_access_level: level('analytics'),
    container_registry_access_level: level('container_registry'),
    emails_disabled: settings.emails_disabled,
    shared_runners_enabled: settings.shared_runners_enabled,
    lfs_enabled: settings.lfs_enabled,
    creator_id: row.creator_id,
    import_status: row.import_status,
    // Always in the full form (spec Part 2 §2.1); the message only for those who may administer the
    // project, as the platform exposes it.
    import_error: admin ? settings.import_error : null,
    // Issues do not exist yet, so none is open.
    open_issues_count: issues ? 0 : undefined,
    runners_token: admin ? row.runners_token : undefined,
    ci_default_git_depth: settings.ci_default_git_depth,
    ci_forward_deployment_enabled: settings.ci_forward_deployment_enabled,
    ci_job_token_scope_enabled: settings.ci_job_token_scope_enabled,
    public_jobs: settings.public_builds,
    build_git_strategy: admin ? settings.build_git_strategy : undefined,
    build_timeout: settings.build_timeout,
    auto_cancel_pending_pipelines: settings.auto_cancel_pending_pipelines,
    build_coverage_regex: settings.build_coverage_regex,
    ci_config_path: can.has('download_code') ? settings.ci_config_path : undefined,
    // Sharing a project with a group is not offered yet.
    shared_with_groups: [],
    only_allow_merge_if_pipeline_succeeds: settings.only_allow_merge_if_pipeline_succeeds,
    allow_merge_on_skipped_pipeline: settings.allow_merge_on_skipped_pipeline,
    restrict_user_defined_variables: settings.restrict_user_defined_variables,
    request_access_enabled: settings.request_access_enabled,
    only_allow_merge_if_all_discussions_are_resolved: settings.only_allow_merge_if_all_discussions_are_resolved,
    remove_source_branch_after_merge: settings.remove_source_branch_after_merge,
    printing_merge_request_link_enabled: settings.printing_merge_request_link_enabled,
    merge_method: settings.merge_method,
    squash_option: settings.squash_option,
    suggestion_commit_message: settings.suggestion_commit_message,
    statistics,
    auto_devops_enabled: settings.auto_devops_enabled,
    auto_devops_deploy_strategy: settings.auto_devops_deploy_strategy,
    autoclose_referenced_issues: settings.autoclose_referenced_issues,
    repository_storage: view.viewer?.isAdmin ? row.repository_storage : undefined,
    keep_latest_artifact: settings.keep_latest_artifact,
    // Delayed deletion is not offered: projects are removed at once.
    marked_for_deletion_at: null,
    marked_for_deletion_on: null,
    permissions: withPermissions ? permissionsOf(row, view) : undefined,
  };
}

function permissionsOf(row: ProjectRow, view: ProjectView): ProjectWithAccess['permissions'] {
  const namespace = view.namespaces.get(row.namespace_id) as ProjectNamespace;
  const projectLevel = view.projectMembers.get(row.id);
  const groupLevel = namespace.type === 'Group' ? view.groupMembers.get(namespace.id) : undefined;
  return {
    project_access: projectLevel === undefined ? null : { access_level: projectLevel, notification_level: GLOBAL_NOTIFICATION_LEVEL },
    group_access: groupLevel === undefined ? null : { access_level: groupLevel, notification_level: GLOBAL_NOTIFICATION_LEVEL },
  };
}

/**
 * One project in the chosen form. `adminFields` (single-project answers only, as on the
 * platform) adds runners_token and build_git_strategy, and import_error's message, for callers
 * who may administer the project.
 */
export function presentProject(row: ProjectRow, view: ProjectView, form: 'simple'): ProjectSimple;
export function presentProject(row: ProjectRow, view: ProjectView, form: 'full', adminFields?: boolean): Project;
export function presentProject(row: ProjectRow, view: ProjectView, form: 'with_access', adminFields?: boolean): ProjectWithAccess;
export function presentProject(row: ProjectRow, view: ProjectView, form: ProjectForm, adminFields?: boolean): ProjectSimple | Project | ProjectWithAccess;
export function presentProject(row: ProjectRow, view: ProjectView, form: ProjectForm, adminFields = false): ProjectSimple | Project | ProjectWithAccess {
  const { access, can } = accessOf(row, view);
  if (form === 'simple') return simpleFields(row, view, can);
  return fullFields(row, view, access, can, adminFields, form === 'with_access');
}

/** A page of projects in one form (lists never carry the administrator-only fields). */
export function presentProjects(rows: readonly ProjectRow[], view: ProjectView, form: ProjectForm): (ProjectSimple | Project | ProjectWithAccess)[] {
  return rows.map((row) => presentProject(row, view, form));
}
