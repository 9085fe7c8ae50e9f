// Typed settings: the JSON objects projects.settings and namespaces.settings become one column per
// setting, and the instance gets its settings row.
// - project_features: an access level per feature, as the platform stores them (0 disabled,
//   10 private, 20 enabled, 30 public), replacing the feature switches on projects;
// - project_ci_cd_settings: what CI reads; project_settings: the rest of a project's settings;
// - namespaces.project_creation_level / subgroup_creation_level (the ability table reads them with
//   the group, as on the platform) and namespace_settings: the rest of a group's settings;
// - application_settings: one row, every instance setting with its default, and a generation
//   number that every change moves forward (readers cache the row and re-read when it moved);
// - runners registration tokens are kept encrypted (they are shown to those who administer the
//   project or group) beside a SHA-256 digest to find them by, never in clear.
// Existing values are carried over; a setting a project or group never set gets its default.
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { type MigrationContext, isPostgres } from './helpers.ts';

type Column = [name: string, type: 'boolean' | 'integer' | 'double precision' | 'text' | 'json', defaultValue: unknown];

const FEATURES = ['issues', 'repository', 'merge_requests', 'forking', 'wiki', 'builds', 'snippets', 'pages', 'operations', 'analytics', 'container_registry'];
const LEVEL_CODES: Record<string, number> = { disabled: 0, private: 10, enabled: 20, public: 30 };
/** Features whose switch was a column of projects. */
const FEATURE_SWITCHES: Record<string, string> = { issues: 'issues_enabled', merge_requests: 'merge_requests_enabled', wiki: 'wiki_enabled', builds: 'jobs_enabled', snippets: 'snippets_enabled' };

const PROJECT_CI_CD_COLUMNS: Column[] = [
  ['ci_config_path', 'text', null],
  ['build_timeout', 'integer', 3600],
  ['shared_runners_enabled', 'boolean', true],
  ['public_builds', 'boolean', true],
  ['ci_default_git_depth', 'integer', 50],
  ['build_git_strategy', 'text', 'fetch'],
  ['ci_forward_deployment_enabled', 'boolean', true],
  ['ci_job_token_scope_enabled', 'boolean', false],
  ['keep_latest_artifact', 'boolean', true],
  ['auto_cancel_pending_pipelines', 'text', 'enabled'],
  ['build_coverage_regex', 'text', null],
  ['restrict_user_defined_variables', 'boolean', false],
  ['auto_devops_enabled', 'boolean', true],
  ['auto_devops_deploy_strategy', 'text', 'continuous'],
];
/** Nullable whatever their default. */
const NULLABLE = new Set(['ci_default_git_depth', 'emails_disabled', 'allow_merge_on_skipped_pipeline', 'remove_source_branch_after_merge']);

const PROJECT_SETTINGS_COLUMNS: Column[] = [
  ['packages_enabled', 'boolean', true],
  ['resolve_outdated_diff_discussions', 'boolean', false],
  ['service_desk_enabled', 'boolean', false],
  ['emails_disabled', 'boolean', false],
  ['show_default_award_emojis', 'boolean', true],
  ['lfs_enabled', 'boolean', true],
  ['only_allow_merge_if_pipeline_succeeds', 'boolean', false],
  ['allow_merge_on_skipped_pipeline', 'boolean', false],
  ['request_access_enabled', 'boolean', true],
  ['only_allow_merge_if_all_discussions_are_resolved', 'boolean', false],
  ['remove_source_branch_after_merge', 'boolean', true],
  ['printing_merge_request_link_enabled', 'boolean', true],
  ['merge_method', 'text', 'merge'],
  ['squash_option', 'text', 'default_off'],
  ['suggestion_commit_message', 'text', null],
  ['autoclose_referenced_issues', 'boolean', true],
  ['import_error', 'text', null],
  ['initialize_with_readme', 'boolean', false],
];

const NAMESPACE_SETTINGS_COLUMNS: Column[] = [
  ['share_with_group_lock', 'boolean', false],
  ['require_two_factor_authentication', 'boolean', false],
  ['two_factor_grace_period', 'integer', 48],
  ['auto_devops_enabled', 'boolean', null],
  ['emails_disabled', 'boolean', null],
  ['mentions_disabled', 'boolean', null],
  ['lfs_enabled', 'boolean', null],
  ['default_branch_protection', 'integer', null],
  ['shared_runners_setting', 'text', 'enabled'],
  ['prevent_sharing_groups_outside_hierarchy', 'boolean', false],
];

const APPLICATION_SETTINGS_COLUMNS: Column[] = [
  ['admin_mode', 'boolean', false],
  ['signup_enabled', 'boolean', true],
  ['require_admin_approval_after_user_signup', 'boolean', true],
  ['send_user_confirmation_email', 'boolean', false],
  ['password_authentication_enabled_for_web', 'boolean', true],
  ['password_authentication_enabled_for_git', 'boolean', true],
  ['minimum_password_length', 'integer', 8],
  ['require_two_factor_authentication', 'boolean', false],
  ['two_factor_grace_period', 'integer', 48],
  ['session_expire_delay', 'integer', 10080],
  ['user_default_external', 'boolean', false],
  ['user_oauth_applications', 'boolean', true],
  ['user_show_add_ssh_key_message', 'boolean', true],
  ['user_deactivation_emails_enabled', 'boolean', true],
  ['deactivate_dormant_users', 'boolean', false],
  ['disable_feed_token', 'boolean', false],
  ['disabled_oauth_sign_in_sources', 'json', "[]"],
  ['domain_allowlist', 'json', "[]"],
  ['domain_denylist_enabled', 'boolean', false],
  ['domain_denylist', 'json', "[]"],
  ['after_sign_out_path', 'text', null],
  ['after_sign_up_text', 'text', null],
  ['sign_in_text', 'text', null],
  ['home_page_url', 'text', null],
  ['help_page_text', 'text', null],
  ['help_page_hide_commercial_content', 'boolean', false],
  ['help_page_support_url', 'text', null],
  ['abuse_notification_email', 'text', null],
  ['gravatar_enabled', 'boolean', true],
  ['enforce_terms', 'boolean', false],
  ['terms', 'text', null],
  ['personal_access_token_prefix', 'text', null],
  ['enabled_git_access_protocol', 'text', null],
  ['rsa_key_restriction', 'integer', 0],
  ['dsa_key_restriction', 'integer', 0],
  ['ecdsa_key_restriction', 'integer', 0],
  ['ed25519_key_restriction', 'integer', 0],
  ['default_branch_name', 'text', null],
  ['default_branch_protection', 'integer', 2],
  ['default_ci_config_path', 'text', null],
  ['default_project_visibility', 'text', "private"],
  ['default_group_visibility', 'text', "private"],
  ['default_snippet_visibility', 'text', "private"],
  ['restricted_visibility_levels', 'json', "[]"],
  ['default_project_creation', 'integer', 2],
  ['default_projects_limit', 'integer', 100000],
  ['default_artifacts_expire_in', 'text', "30 days"],
  ['archive_builds_in_human_readable', 'text', null],
  ['keep_latest_artifact', 'boolean', true],
  ['shared_runners_enabled', 'boolean', true],
  ['shared_runners_text', 'text', null],
  ['auto_devops_enabled', 'boolean', true],
  ['auto_devops_domain', 'text', null],
  ['delayed_project_deletion', 'boolean', false],
  ['deletion_adjourned_period', 'integer', 7],
  ['import_sources', 'json', "[\"github\",\"bitbucket\",\"bitbucket_server\",\"gitlab\",\"fogbugz\",\"git\",\"gitlab_project\",\"gitea\",\"manifest\",\"phabricator\"]"],
  ['project_export_enabled', 'boolean', true],
  ['mirror_available', 'boolean', true],
  ['commit_email_hostname', 'text', null],
  ['max_attachment_size', 'integer', 10],
  ['max_artifacts_size', 'integer', 100],
  ['max_pages_size', 'integer', 100],
  ['max_import_size', 'integer', 0],
  ['diff_max_patch_bytes', 'integer', 204800],
  ['diff_max_files', 'integer', 1000],
  ['diff_max_lines', 'integer', 50000],
  ['snippet_size_limit', 'integer', 52428800],
  ['wiki_page_max_content_bytes', 'integer', 52428800],
  ['issues_create_limit', 'integer', 300],
  ['raw_blob_request_limit', 'integer', 300],
  ['project_export_limit', 'integer', 6],
  ['project_import_limit', 'integer', 6],
  ['project_download_export_limit', 'integer', 1],
  ['group_export_limit', 'integer', 6],
  ['group_import_limit', 'integer', 6],
  ['group_download_export_limit', 'integer', 1],
  ['push_event_hooks_limit', 'integer', 3],
  ['push_event_activities_limit', 'integer', 3],
  ['container_registry_token_expire_delay', 'integer', 5],
  ['container_expiration_policies_enable_historic_entries', 'boolean', false],
  ['terminal_max_session_time', 'integer', 0],
  ['polling_interval_multiplier', 'double precision', 1],
  ['first_day_of_week', 'integer', 0],
  ['local_markdown_version', 'integer', 0],
  ['throttle_authenticated_api_enabled', 'boolean', false],
  ['throttle_authenticated_api_requests_per_period', 'integer', 7200],
  ['throttle_authenticated_api_period_in_seconds', 'integer', 3600],
  ['throttle_authenticated_web_enabled', 'boolean', false],
  ['throttle_authenticated_web_requests_per_period', 'integer', 7200],
  ['throttle_authenticated_web_period_in_seconds', 'integer', 3600],
  ['throttle_unauthenticated_enabled', 'boolean', false],
  ['throttle_unauthenticated_requests_per_period', 'integer', 3600],
  ['throttle_unauthenticated_period_in_seconds', 'integer', 3600],
  ['throttle_protected_paths_enabled', 'boolean', false],
  ['throttle_protected_paths_requests_per_period', 'integer', 10],
  ['throttle_protected_paths_period_in_seconds', 'integer', 60],
  ['rate_limiting_response_text', 'text', null],
  ['unique_ips_limit_enabled', 'boolean', false],
  ['unique_ips_limit_per_user', 'integer', 10],
  ['unique_ips_limit_time_window', 'integer', 3600],
  ['repository_storages_weighted', 'json', "{\"default\":100}"],
  ['repository_checks_enabled', 'boolean', true],
  ['hashed_storage_enabled', 'boolean', true],
  ['authorized_keys_enabled', 'boolean', true],
  ['housekeeping_enabled', 'boolean', true],
  ['housekeeping_bitmaps_enabled', 'boolean', true],
  ['housekeeping_incremental_repack_period', 'integer', 10],
  ['housekeeping_full_repack_period', 'integer', 50],
  ['housekeeping_gc_period', 'integer', 200],
  ['gitaly_timeout_default', 'integer', 55],
  ['gitaly_timeout_medium', 'integer', 30],
  ['gitaly_timeout_fast', 'integer', 10],
  ['allow_local_requests_from_web_hooks_and_services', 'boolean', false],
  ['allow_local_requests_from_system_hooks', 'boolean', true],
  ['outbound_local_requests_whitelist', 'json', "[]"],
  ['dns_rebinding_protection_enabled', 'boolean', true],
  ['akismet_enabled', 'boolean', false],
  ['akismet_api_key', 'text', null],
  ['recaptcha_enabled', 'boolean', false],
  ['login_recaptcha_protection_enabled', 'boolean', false],
  ['recaptcha_site_key', 'text', null],
  ['recaptcha_private_key', 'text', null],
  ['spam_check_endpoint_enabled', 'boolean', false],
  ['spam_check_endpoint_url', 'text', null],
  ['asset_proxy_enabled', 'boolean', false],
  ['asset_proxy_url', 'text', null],
  ['asset_proxy_secret_key', 'text', null],
  ['asset_proxy_allowlist', 'json', "[]"],
  ['plantuml_enabled', 'boolean', false],
  ['plantuml_url', 'text', null],
  ['kroki_enabled', 'boolean', false],
  ['kroki_url', 'text', null],
  ['sourcegraph_enabled', 'boolean', false],
  ['sourcegraph_url', 'text', null],
  ['sourcegraph_public_only', 'boolean', true],
  ['gitpod_enabled', 'boolean', false],
  ['gitpod_url', 'text', "https://gitpod.io/"],
  ['eks_integration_enabled', 'boolean', false],
  ['eks_account_id', 'text', null],
  ['eks_access_key_id', 'text', null],
  ['eks_secret_access_key', 'text', null],
  ['snowplow_enabled', 'boolean', false],
  ['snowplow_collector_hostname', 'text', null],
  ['npm_package_requests_forwarding', 'boolean', true],
  ['pypi_package_requests_forwarding', 'boolean', true],
  ['external_authorization_service_enabled', 'boolean', false],
  ['external_authorization_service_url', 'text', null],
  ['external_authorization_service_default_label', 'text', null],
  ['external_authorization_service_timeout', 'double precision', 0.5],
  ['external_pipeline_validation_service_url', 'text', null],
  ['external_pipeline_validation_service_token', 'text', null],
  ['external_pipeline_validation_service_timeout', 'integer', null],
  ['usage_ping_enabled', 'boolean', true],
  ['version_check_enabled', 'boolean', true],
  ['html_emails_enabled', 'boolean', true],
  ['email_author_in_body', 'boolean', false],
  ['floc_enabled', 'boolean', false],
  ['performance_bar_allowed_group_id', 'integer', null],
  ['allow_group_owners_to_manage_ldap', 'boolean', true],
  ['automatic_purchased_storage_allocation', 'boolean', false],
  ['check_namespace_plan', 'boolean', false],
  ['file_template_project_id', 'integer', null],
  ['geo_node_allowed_ips', 'text', "0.0.0.0/0, ::/0"],
  ['geo_status_timeout', 'integer', 10],
];

const BATCH = 500;

function columnType(db: Kysely<any>, type: Column[1]) {
  if (type === 'json') return 'text';
  if (type === 'double precision') return isPostgres(db) ? 'double precision' : 'real';
  return type;
}

/** Adds the columns, NOT NULL unless the default is null (or the setting may be unset). */
function withColumns<T extends { addColumn: (...args: any[]) => T }>(db: Kysely<any>, table: T, columns: Column[]): T {
  let out = table;
  for (const [name, type, value] of columns) {
    out = out.addColumn(name, columnType(db, type), (c: any) => {
      if (value === null) return c;
      const withDefault = c.defaultTo(typeof value === 'boolean' ? sql.raw(String(value)) : value);
      return NULLABLE.has(name) ? withDefault : withDefault.notNull();
    });
  }
  return out;
}

const digest = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** One setting's stored value, or its default when the JSON lacks it or holds another type. */
function valueOf(stored: Record<string, unknown>, [name, type, fallback]: Column): unknown {
  const value = stored[name];
  if (value === null) return fallback === null || NULLABLE.has(name) ? null : fallback;
  if (type === 'boolean' && typeof value === 'boolean') return value;
  if (type === 'integer' && typeof value === 'number' && Number.isInteger(value)) return value;
  if (type === 'text' && typeof value === 'string') return value;
  return fallback;
}

function rowOf(columns: Column[], stored: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column[0], valueOf(stored, column)]));
}

const parse = (json: unknown): Record<string, unknown> => {
  try {
    const value = JSON.parse(String(json ?? '{}'));
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
};

export async function up(db: Kysely<any>, context: MigrationContext): Promise<void> {
  await projectSettings(db, context);
  await namespaceSettings(db, context);
  await applicationSettings(db);
}

async function projectSettings(db: Kysely<any>, context: MigrationContext): Promise<void> {
  const projectKey = (c: any) => c.primaryKey().references('projects.id').onDelete('cascade');
  let features = db.schema.createTable('project_features').addColumn('project_id', 'bigint', projectKey);
  for (const feature of FEATURES) {
    features = features.addColumn(`${feature}_access_level`, 'integer', (c) => c.notNull().defaultTo(feature === 'pages' ? LEVEL_CODES.private : LEVEL_CODES.enabled));
  }
  await features.execute();
  await withColumns(db, db.schema.createTable('project_ci_cd_settings').addColumn('project_id', 'bigint', projectKey), PROJECT_CI_CD_COLUMNS).execute();
  await withColumns(db, db.schema.createTable('project_settings').addColumn('project_id', 'bigint', projectKey), PROJECT_SETTINGS_COLUMNS).execute();

  await db.schema.alterTable('projects').addColumn('runners_token_encrypted', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('projects').addColumn('runners_token_digest', 'varchar(64)', (c) => c.notNull().defaultTo('')).execute();

  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('projects')
      .select(['id', 'visibility_level', 'issues_enabled', 'merge_requests_enabled', 'jobs_enabled', 'wiki_enabled', 'snippets_enabled', 'settings', 'runners_token'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) break;
    after = Number(rows[rows.length - 1].id);
    const featureRows = [];
    const ciCdRows = [];
    const settingsRows = [];
    for (const row of rows) {
      const stored = parse(row.settings);
      const levels = (typeof stored.access_levels === 'object' && stored.access_levels !== null ? stored.access_levels : {}) as Record<string, unknown>;
      const featureRow: Record<string, unknown> = { project_id: row.id };
      for (const feature of FEATURES) {
        const level = levels[feature];
        const switchedOff = FEATURE_SWITCHES[feature] !== undefined && !(row as Record<string, unknown>)[FEATURE_SWITCHES[feature]];
        // Pages followed the visibility until set: enabled on public projects, private elsewhere.
        const unset = feature === 'pages' ? (row.visibility_level >= 20 ? LEVEL_CODES.enabled : LEVEL_CODES.private) : LEVEL_CODES.enabled;
        featureRow[`${feature}_access_level`] = switchedOff ? LEVEL_CODES.disabled : typeof level === 'string' && level in LEVEL_CODES ? LEVEL_CODES[level] : unset;
      }
      featureRows.push(featureRow);
      ciCdRows.push({ project_id: row.id, ...rowOf(PROJECT_CI_CD_COLUMNS, stored) });
      settingsRows.push({ project_id: row.id, ...rowOf(PROJECT_SETTINGS_COLUMNS, stored) });
      const token = String(row.runners_token);
      await db.updateTable('projects').set({ runners_token_encrypted: context.seal(token), runners_token_digest: digest(token) }).where('id', '=', row.id).execute();
    }
    await db.insertInto('project_features').values(featureRows).execute();
    await db.insertInto('project_ci_cd_settings').values(ciCdRows).execute();
    await db.insertInto('project_settings').values(settingsRows).execute();
  }
  await db.schema.createIndex('projects_runners_token_digest').on('projects').columns(['runners_token_digest']).execute();
  for (const column of ['settings', 'issues_enabled', 'merge_requests_enabled', 'jobs_enabled', 'wiki_enabled', 'snippets_enabled', 'runners_token']) {
    await db.schema.alterTable('projects').dropColumn(column).execute();
  }
}

async function namespaceSettings(db: Kysely<any>, context: MigrationContext): Promise<void> {
  await db.schema.alterTable('namespaces').addColumn('project_creation_level', 'varchar(16)', (c) => c.notNull().defaultTo('developer')).execute();
  await db.schema.alterTable('namespaces').addColumn('subgroup_creation_level', 'varchar(16)', (c) => c.notNull().defaultTo('maintainer')).execute();
  await withColumns(
    db,
    db.schema
      .createTable('namespace_settings')
      .addColumn('namespace_id', 'bigint', (c) => c.primaryKey().references('namespaces.id').onDelete('cascade'))
      .addColumn('runners_token_encrypted', 'text')
      .addColumn('runners_token_digest', 'varchar(64)'),
    NAMESPACE_SETTINGS_COLUMNS,
  ).execute();

  const groups = await db.selectFrom('namespaces').select(['id', 'settings']).where('type', '=', 'Group').orderBy('id').execute();
  for (const group of groups) {
    const stored = parse(group.settings);
    const token = typeof stored.runners_token === 'string' ? stored.runners_token : null;
    await db
      .insertInto('namespace_settings')
      .values({
        namespace_id: group.id,
        ...rowOf(NAMESPACE_SETTINGS_COLUMNS, stored),
        runners_token_encrypted: token === null ? null : context.seal(token),
        runners_token_digest: token === null ? null : digest(token),
      })
      .execute();
    const levels: Record<string, string> = {};
    if (['noone', 'maintainer', 'developer'].includes(String(stored.project_creation_level))) levels.project_creation_level = String(stored.project_creation_level);
    if (['owner', 'maintainer'].includes(String(stored.subgroup_creation_level))) levels.subgroup_creation_level = String(stored.subgroup_creation_level);
    if (Object.keys(levels).length > 0) await db.updateTable('namespaces').set(levels).where('id', '=', group.id).execute();
  }
  await db.schema.createIndex('namespace_settings_runners_token_digest').on('namespace_settings').columns(['runners_token_digest']).execute();
  await db.schema.alterTable('namespaces').dropColumn('settings').execute();
}

async function applicationSettings(db: Kysely<any>): Promise<void> {
  const table = db.schema
    .createTable('application_settings')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('updated_at', 'varchar(32)', (c) => c.notNull());
  await withColumns(db, table, APPLICATION_SETTINGS_COLUMNS).execute();
  const at = new Date().toISOString();
  await db.insertInto('application_settings').values({ id: 1, generation: 1, created_at: at, updated_at: at }).execute();
}
