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
import type { Project, ProjectIdentity, ProjectSimple, ProjectStatistics, ProjectWithAccess } from './projects.schemas.ts';
import {
  type Feature,
  type FeatureLevel,
  PROJECT_CI_CD_SETTINGS,
  PROJECT_FEATURES,
  PROJECT_SETTINGS,
  type ProjectSettingValues,
  featureSetting,
} from '../../domain/settings/project-settings.ts';

/** The notification level a membership reports until notification settings exist: 'global'. */
const GLOBAL_NOTIFICATION_LEVEL = 3;

/** Entities::ProjectIdentity, which other entities nest (a job's, a to-do's). */
export function presentProjectIdentity(row: Pick<ProjectRow, 'id' | 'description' | 'name' | 'name_with_namespace' | 'path' | 'full_path' | 'created_at'>): ProjectIdentity {
  return { id: row.id, description: row.description, name: row.name, name_with_namespace: row.name_with_namespace, path: row.path, path_with_namespace: row.full_path, created_at: row.created_at };
}

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
  /** The projects' settings, for the full forms. */
  settings?: ReadonlyMap<number, ProjectSettingValues>;
  /** Decrypts a stored secret (the runners token), for those who administer the project. */
  openSecret: (sealed: string) => string;
}

/** A project whose settings were not loaded reads as the defaults. */
const DEFAULT_SETTINGS: ProjectSettingValues = { features: PROJECT_FEATURES.defaults, ciCd: PROJECT_CI_CD_SETTINGS.defaults, settings: PROJECT_SETTINGS.defaults };

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
  const { features, ciCd, settings } = view.settings?.get(row.id) ?? DEFAULT_SETTINGS;
  const namespace = view.namespaces.get(row.namespace_id) as ProjectNamespace;
  const readable = can.has('read_project');
  const available = (feature: Feature, at: FeatureLevel = features[featureSetting(feature)]) => readable && projectFeatureAvailable(view.viewer, row, access, feature, at);
  const issues = available('issues');
  const mergeRequests = available('merge_requests');
  const self = apiUrl(view.baseUrl, `/projects/${row.id}`);
  const owner = namespace.type === 'User' && namespace.owner_id !== null ? view.owners.get(namespace.owner_id) : undefined;
  const admin = adminFields && can.has('admin_project');
  const statistics = view.statistics && can.has('read_statistics') ? (view.statistics.get(row.id) ?? EMPTY_STATISTICS) : undefined;
  const audience = { admin, download_code: can.has('download_code') };
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
    empty_repo: row.empty_repo,
    archived: row.archived,
    visibility: visibilityName(row.visibility_level),
    owner: owner ? { ...userBasicFields(owner, view.baseUrl), created_at: owner.created_at } : undefined,
    issues_enabled: issues,
    merge_requests_enabled: mergeRequests,
    wiki_enabled: available('wiki'),
    jobs_enabled: available('builds'),
    snippets_enabled: available('snippets'),
    container_registry_enabled: available('container_registry'),
    service_desk_address: null,
    can_create_merge_request_in: can.has('create_merge_request_in') && mergeRequests && available('repository'),
    creator_id: row.creator_id,
    import_status: row.import_status,
    // Issues do not exist yet, so none is open.
    open_issues_count: issues ? 0 : undefined,
    runners_token: admin ? view.openSecret(row.runners_token_encrypted) : undefined,
    // Sharing a project with a group is not offered yet.
    shared_with_groups: [],
    statistics,
    repository_storage: view.viewer?.isAdmin ? row.repository_storage : undefined,
    // Delayed deletion is not offered: projects are removed at once.
    marked_for_deletion_at: null,
    marked_for_deletion_on: null,
    ...PROJECT_FEATURES.present(features),
    ...PROJECT_CI_CD_SETTINGS.present(ciCd, audience),
    ...PROJECT_SETTINGS.present(settings, audience),
    // Always in the full form (spec Part 2 §2.1); the message only for those who may administer the
    // project, as the platform exposes it.
    import_error: admin ? (settings.import_error ?? null) : null,
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
