// The project's less-queried settings, kept as JSON in projects.settings, with the platform's
// defaults for a new project. Feature switches live in two places: the boolean columns
// (issues_enabled, …) say whether the feature is on at all, for SQL filters; the settings keep
// the finer access level ('private' = members only).
import type { ProjectRow } from '../../db/schema.ts';

export type FeatureLevel = 'disabled' | 'private' | 'enabled' | 'public';

/** Features with an access level; the first five mirror a boolean column. */
export const FEATURES = [
  'issues',
  'merge_requests',
  'wiki',
  'builds',
  'snippets',
  'repository',
  'forking',
  'pages',
  'operations',
  'analytics',
  'container_registry',
] as const;
export type Feature = (typeof FEATURES)[number];

/** Feature → its boolean column. */
export const FEATURE_COLUMNS = {
  issues: 'issues_enabled',
  merge_requests: 'merge_requests_enabled',
  wiki: 'wiki_enabled',
  builds: 'jobs_enabled',
  snippets: 'snippets_enabled',
} as const satisfies Partial<Record<Feature, keyof ProjectRow>>;
export type FeatureColumn = (typeof FEATURE_COLUMNS)[keyof typeof FEATURE_COLUMNS];

export interface ProjectSettings {
  access_levels: Partial<Record<Feature, FeatureLevel>>;
  resolve_outdated_diff_discussions: boolean;
  service_desk_enabled: boolean;
  emails_disabled: boolean | null;
  show_default_award_emojis: boolean;
  shared_runners_enabled: boolean;
  lfs_enabled: boolean;
  packages_enabled: boolean;
  ci_default_git_depth: number | null;
  ci_forward_deployment_enabled: boolean;
  ci_job_token_scope_enabled: boolean;
  public_builds: boolean;
  build_git_strategy: 'fetch' | 'clone';
  build_timeout: number;
  auto_cancel_pending_pipelines: 'enabled' | 'disabled';
  build_coverage_regex: string | null;
  ci_config_path: string | null;
  only_allow_merge_if_pipeline_succeeds: boolean;
  allow_merge_on_skipped_pipeline: boolean | null;
  restrict_user_defined_variables: boolean;
  request_access_enabled: boolean;
  only_allow_merge_if_all_discussions_are_resolved: boolean;
  remove_source_branch_after_merge: boolean | null;
  printing_merge_request_link_enabled: boolean;
  merge_method: 'merge' | 'rebase_merge' | 'ff';
  squash_option: 'never' | 'always' | 'default_on' | 'default_off';
  suggestion_commit_message: string | null;
  auto_devops_enabled: boolean;
  auto_devops_deploy_strategy: 'continuous' | 'manual' | 'timed_incremental';
  autoclose_referenced_issues: boolean;
  keep_latest_artifact: boolean;
  import_error: string | null;
  /** The creator asked for a README commit; the repository, once created, honours it. */
  initialize_with_readme: boolean;
}

export const DEFAULT_SETTINGS: ProjectSettings = {
  access_levels: {},
  resolve_outdated_diff_discussions: false,
  service_desk_enabled: false,
  emails_disabled: false,
  show_default_award_emojis: true,
  shared_runners_enabled: true,
  lfs_enabled: true,
  packages_enabled: true,
  ci_default_git_depth: 50,
  ci_forward_deployment_enabled: true,
  ci_job_token_scope_enabled: false,
  public_builds: true,
  build_git_strategy: 'fetch',
  build_timeout: 3600,
  auto_cancel_pending_pipelines: 'enabled',
  build_coverage_regex: null,
  ci_config_path: null,
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: false,
  restrict_user_defined_variables: false,
  request_access_enabled: true,
  only_allow_merge_if_all_discussions_are_resolved: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  merge_method: 'merge',
  squash_option: 'default_off',
  suggestion_commit_message: null,
  auto_devops_enabled: true,
  auto_devops_deploy_strategy: 'continuous',
  autoclose_referenced_issues: true,
  keep_latest_artifact: true,
  import_error: null,
  initialize_with_readme: false,
};

export function parseSettings(json: string): ProjectSettings {
  const stored = JSON.parse(json) as Partial<ProjectSettings>;
  return { ...DEFAULT_SETTINGS, ...stored, access_levels: { ...(stored.access_levels ?? {}) } };
}

/**
 * The stored level of a feature. A feature with a boolean column is 'disabled' when the column
 * says so; pages default to 'enabled' on public projects and 'private' elsewhere, as on the platform.
 */
export function featureLevel(row: Pick<ProjectRow, 'visibility_level' | FeatureColumn>, settings: ProjectSettings, feature: Feature): FeatureLevel {
  const column = (FEATURE_COLUMNS as Partial<Record<Feature, FeatureColumn>>)[feature];
  if (column && !row[column]) return 'disabled';
  const stored = settings.access_levels[feature];
  if (stored) return stored;
  if (feature === 'pages') return row.visibility_level >= 20 ? 'enabled' : 'private';
  return 'enabled';
}
