// A project's settings, one typed column each, in three tables keyed by project_id:
// project_features (an access level per feature), project_ci_cd_settings (what CI reads) and
// project_settings (the rest). A project without a row in one of them (one inserted straight into
// `projects`) reads as the declared defaults, as a project without statistics has stored nothing.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type Values, bool, boolOrNull, coded, declareSettings, int, intOrNull, oneOf, strOrNull } from './declare.ts';

/** Feature access levels as the platform stores them. */
export const FEATURE_LEVEL_CODES = { disabled: 0, private: 10, enabled: 20, public: 30 } as const;
export type FeatureLevel = keyof typeof FEATURE_LEVEL_CODES;

/** Every feature but pages offers the three levels below public. */
const level = () => coded(FEATURE_LEVEL_CODES, 'enabled', { accepts: ['disabled', 'private', 'enabled'] });

export const PROJECT_FEATURES = declareSettings('project_features', {
  issues_access_level: level(),
  repository_access_level: level(),
  merge_requests_access_level: level(),
  forking_access_level: level(),
  wiki_access_level: level(),
  builds_access_level: level(),
  snippets_access_level: level(),
  // A new project's pages are 'enabled' when it is public (see newProjectFeatures).
  pages_access_level: coded(FEATURE_LEVEL_CODES, 'private'),
  operations_access_level: level(),
  analytics_access_level: level(),
  container_registry_access_level: level(),
});

export const PROJECT_CI_CD_SETTINGS = declareSettings('project_ci_cd_settings', {
  ci_config_path: strOrNull(null, { when: 'download_code' }),
  build_timeout: int(3600),
  // A new project follows the instance's shared_runners_enabled.
  shared_runners_enabled: bool(true),
  public_builds: bool(true, { field: 'public_jobs' }),
  ci_default_git_depth: intOrNull(50),
  // The platform keeps a boolean (build_allow_git_fetch); the word is what every client sends and reads.
  build_git_strategy: oneOf(['fetch', 'clone'], 'fetch', { when: 'admin' }),
  ci_forward_deployment_enabled: bool(true, { only: 'update' }),
  ci_job_token_scope_enabled: bool(false, { param: null }),
  keep_latest_artifact: bool(true, { only: 'update' }),
  auto_cancel_pending_pipelines: oneOf(['enabled', 'disabled'], 'enabled'),
  build_coverage_regex: strOrNull(null),
  restrict_user_defined_variables: bool(false, { only: 'update' }),
  auto_devops_enabled: bool(true),
  auto_devops_deploy_strategy: oneOf(['continuous', 'manual', 'timed_incremental'], 'continuous'),
});

export const PROJECT_SETTINGS = declareSettings('project_settings', {
  packages_enabled: bool(true),
  resolve_outdated_diff_discussions: bool(false),
  service_desk_enabled: bool(false),
  emails_disabled: boolOrNull(false),
  show_default_award_emojis: bool(true, { field: null }),
  lfs_enabled: bool(true),
  only_allow_merge_if_pipeline_succeeds: bool(false),
  allow_merge_on_skipped_pipeline: boolOrNull(false),
  request_access_enabled: bool(true),
  only_allow_merge_if_all_discussions_are_resolved: bool(false),
  remove_source_branch_after_merge: boolOrNull(true),
  printing_merge_request_link_enabled: bool(true),
  merge_method: oneOf(['merge', 'rebase_merge', 'ff'], 'merge'),
  squash_option: oneOf(['never', 'always', 'default_on', 'default_off'], 'default_off'),
  suggestion_commit_message: strOrNull(null),
  autoclose_referenced_issues: bool(true),
  import_error: strOrNull(null, { param: null, when: 'admin' }),
  /** The creator asked for a README commit; the repository, once created, honours it. */
  initialize_with_readme: bool(false, { field: null, only: 'create' }),
});

export type ProjectFeatures = Values<typeof PROJECT_FEATURES.specs>;
export type ProjectCiCdSettings = Values<typeof PROJECT_CI_CD_SETTINGS.specs>;
export type ProjectSettings = Values<typeof PROJECT_SETTINGS.specs>;

/** Everything a project's entity shows of its settings. */
export interface ProjectSettingValues {
  features: ProjectFeatures;
  ciCd: ProjectCiCdSettings;
  settings: ProjectSettings;
}

export interface ProjectSettingChanges {
  features?: Partial<ProjectFeatures>;
  ciCd?: Partial<ProjectCiCdSettings>;
  settings?: Partial<ProjectSettings>;
}

const TABLES = [
  ['features', PROJECT_FEATURES],
  ['ciCd', PROJECT_CI_CD_SETTINGS],
  ['settings', PROJECT_SETTINGS],
] as const;

type SettingsTable = 'project_features' | 'project_ci_cd_settings' | 'project_settings';

// ---- Features ----------------------------------------------------------------------------------

export const FEATURES = ['issues', 'repository', 'merge_requests', 'forking', 'wiki', 'builds', 'snippets', 'pages', 'operations', 'analytics', 'container_registry'] as const;
export type Feature = (typeof FEATURES)[number];
export type FeatureSetting = `${Feature}_access_level`;

export const featureSetting = (feature: Feature): FeatureSetting => `${feature}_access_level`;

/** The features of a new project: pages open to everyone on public projects, to members elsewhere. */
export function newProjectFeatures(visibilityLevel: number): ProjectFeatures {
  return { ...PROJECT_FEATURES.defaults, pages_access_level: visibilityLevel >= 20 ? 'enabled' : 'private' };
}

// ---- Reading -----------------------------------------------------------------------------------

/** The settings of these projects, by project id: three queries whatever their number. */
export async function loadProjectSettings(db: Kysely<DB>, projectIds: readonly number[]): Promise<Map<number, ProjectSettingValues>> {
  const out = new Map<number, ProjectSettingValues>();
  if (projectIds.length === 0) return out;
  const [features, ciCd, settings] = await Promise.all(TABLES.map(([, declared]) => rowsByProject(db, declared.table as SettingsTable, projectIds)));
  for (const id of projectIds) {
    out.set(id, { features: PROJECT_FEATURES.read(features.get(id)), ciCd: PROJECT_CI_CD_SETTINGS.read(ciCd.get(id)), settings: PROJECT_SETTINGS.read(settings.get(id)) });
  }
  return out;
}

async function rowsByProject(db: Kysely<DB>, table: SettingsTable, projectIds: readonly number[]): Promise<Map<number, Record<string, unknown>>> {
  const rows = await db.selectFrom(table).selectAll().where('project_id', 'in', projectIds).execute();
  return new Map(rows.map((row) => [Number(row.project_id), row as Record<string, unknown>]));
}

/** One project's settings. */
export async function readProjectSettings(db: Kysely<DB>, projectId: number): Promise<ProjectSettingValues> {
  return (await loadProjectSettings(db, [projectId])).get(projectId) as ProjectSettingValues;
}

/** One feature's access level. */
export async function readFeatureLevel(db: Kysely<DB>, projectId: number, feature: Feature): Promise<FeatureLevel> {
  const column = featureSetting(feature);
  const row = await db.selectFrom('project_features').select(column).where('project_id', '=', projectId).executeTakeFirst();
  return row ? PROJECT_FEATURES.specs[column].decode(row[column]) : PROJECT_FEATURES.defaults[column];
}

// ---- Writing -----------------------------------------------------------------------------------

/** The rows of a new project, every setting given. */
export async function insertProjectSettings(db: Kysely<DB>, projectId: number, values: ProjectSettingValues): Promise<void> {
  for (const [key, declared] of TABLES) {
    const columns = (declared.columns as (v: object) => Record<string, unknown>)(values[key]);
    await db
      .insertInto(declared.table as SettingsTable)
      .values({ project_id: projectId, ...columns })
      .execute();
  }
}

/** Changes some settings: each table's row is updated, or created with the defaults and the changes. */
export async function updateProjectSettings(db: Kysely<DB>, projectId: number, changes: ProjectSettingChanges): Promise<void> {
  for (const [key, declared] of TABLES) {
    const given = changes[key];
    if (!given) continue;
    const columns = (declared.columns as (v: object) => Record<string, unknown>)(given);
    if (Object.keys(columns).length === 0) continue;
    await db
      .insertInto(declared.table as SettingsTable)
      .values({ project_id: projectId, ...declared.defaultColumns(), ...columns })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(columns))
      .execute();
  }
}
