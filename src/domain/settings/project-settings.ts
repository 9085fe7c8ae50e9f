// A project's settings, one typed column each, in three tables keyed by project_id:
// project_features (an access level per feature), project_ci_cd_settings (what CI reads) and
// project_settings (the rest). A project without a row in one of them (one inserted straight into
// `projects`) reads as the declared defaults, as a project without statistics has stored nothing.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
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

/**
 * The three tables joined to `projects`, each column under its own name (none repeats across the
 * tables) and each table's key as a marker of whether it has a row. Written once as text: compiling
 * a 45-column select costs more than running it.
 */
const SETTINGS_SELECT = sql.raw(
  [
    'select p.id as project_id, p.settings_revision',
    ...TABLES.map(([key, declared], i) => [`, t${i}.project_id as "${key}_row"`, ...declared.columnNames.map((column) => `, t${i}."${column}"`)].join('')),
    ' from projects p',
    ...TABLES.map(([, declared], i) => ` left join ${declared.table} t${i} on t${i}.project_id = p.id`),
    ' where p.id in ',
  ].join(''),
);

/**
 * Settings read recently, by project id, each under the revision it was read at. Reading 45
 * columns for every project of every page costs more than the rest of the page; settings change
 * rarely, and every change replaces the project's revision, so an entry whose revision is not the
 * row's is simply stale. Revisions are random, so entries of several databases (tests) never mix.
 */
const CACHE_ENTRIES = 10_000;
const cache = new Map<number, { revision: string; values: ProjectSettingValues }>();

/** Forgets every project's settings (after the data was replaced wholesale: a test reset). */
export function forgetProjectSettings(): void {
  cache.clear();
}

function remember(projectId: number, revision: string, values: ProjectSettingValues): void {
  if (revision === '') return;
  cache.delete(projectId);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as number);
  cache.set(projectId, { revision, values });
}

/** A project as the settings readers need it: its id and, when the caller has the row, its revision. */
export interface SettingsOwner {
  id: number;
  settings_revision?: string;
}

/** The settings of these projects, by project id: at most one query, none when all are cached. */
export async function loadProjectSettings(db: Kysely<DB>, projects: readonly SettingsOwner[]): Promise<Map<number, ProjectSettingValues>> {
  const out = new Map<number, ProjectSettingValues>();
  const missing: number[] = [];
  for (const { id, settings_revision: revision } of projects) {
    const cached = revision ? cache.get(id) : undefined;
    if (cached && cached.revision === revision) out.set(id, cached.values);
    else if (!out.has(id)) missing.push(id);
  }
  if (missing.length === 0) return out;
  const { rows } = await sql<Record<string, unknown>>`${SETTINGS_SELECT}(${sql.join(missing)})`.execute(db);
  const byProject = new Map(rows.map((row) => [Number(row.project_id), row]));
  for (const id of missing) {
    const row = byProject.get(id);
    const values: ProjectSettingValues = {
      features: PROJECT_FEATURES.read(row?.features_row != null ? row : undefined),
      ciCd: PROJECT_CI_CD_SETTINGS.read(row?.ciCd_row != null ? row : undefined),
      settings: PROJECT_SETTINGS.read(row?.settings_row != null ? row : undefined),
    };
    out.set(id, values);
    if (row) remember(id, String(row.settings_revision), values);
  }
  return out;
}

/** One project's settings. */
export async function readProjectSettings(db: Kysely<DB>, project: SettingsOwner): Promise<ProjectSettingValues> {
  return (await loadProjectSettings(db, [project])).get(project.id) as ProjectSettingValues;
}

/** One feature's access level (from memory when the project's settings are known). */
export async function readFeatureLevel(db: Kysely<DB>, project: SettingsOwner, feature: Feature): Promise<FeatureLevel> {
  return (await readProjectSettings(db, project)).features[featureSetting(feature)];
}

// ---- Writing -----------------------------------------------------------------------------------

/** Every write of settings replaces the revision, in the same transaction: cached copies go stale. */
async function renewRevision(db: Kysely<DB>, projectId: number): Promise<void> {
  await db.updateTable('projects').set({ settings_revision: randomBytes(8).toString('hex') }).where('id', '=', projectId).execute();
}

/** The rows of a new project, every setting given. */
export async function insertProjectSettings(db: Kysely<DB>, projectId: number, values: ProjectSettingValues): Promise<void> {
  await renewRevision(db, projectId);
  for (const [key, declared] of TABLES) {
    const columns = (declared.columns as (v: object) => Record<string, unknown>)(values[key]);
    await db
      .insertInto(declared.table as SettingsTable)
      .values({ project_id: projectId, ...columns })
      .execute();
  }
}

/**
 * Changes some settings: each table's row is updated, or created with the defaults and the changes.
 * A project row read before this carries the old revision (and so the old settings): read it after.
 */
export async function updateProjectSettings(db: Kysely<DB>, projectId: number, changes: ProjectSettingChanges): Promise<void> {
  await renewRevision(db, projectId);
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
