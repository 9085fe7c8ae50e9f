// The instance's settings (spec Part 2 §4.8, with the 14.x defaults): one row of
// `application_settings`, one column per setting, declared below with its default.
//
// Every process keeps the row in memory. The row carries a generation number that each change
// moves forward; a reader trusts its copy for RECHECK_MS and then asks the database for the
// generation alone (one primary-key read), re-reading the row only when it moved. So a request
// costs no query (at most one per second per process does) and a change made here is seen here at
// once. On PostgreSQL a change also sends a notification that makes every node forget its copy as
// soon as it arrives (milliseconds; listenForSettingsChanges), so that the other nodes see it at
// once too; the timed check remains the guarantee (within a second) when a notification is lost,
// and the only means on SQLite, whose processes share no channel.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { VISIBILITY_NAMES, visibilityName } from '../../core/access/levels.ts';
import type { AccessPolicy } from '../../core/auth/resolve.ts';
import type { DB } from '../../db/schema.ts';
import { DEFAULT_STORAGE } from '../../git/storages.ts';
import { type Values, bool, declareSettings, int, intOrNull, list, num, oneOf, str, strOrNull, weights } from './declare.ts';

const visibility = () => oneOf(VISIBILITY_NAMES, 'private');
/** Import sources the platform offers. */
export const IMPORT_SOURCES = ['github', 'bitbucket', 'bitbucket_server', 'gitlab', 'fogbugz', 'git', 'gitlab_project', 'gitea', 'manifest', 'phabricator'] as const;
/** 0 not protected, 1 developers may push, 2 fully protected, 3 developers may merge. */
export const BRANCH_PROTECTION_LEVELS = [0, 1, 2, 3] as const;
/** What enabled_git_access_protocol accepts: one protocol, or `nil` for both. */
export const GIT_ACCESS_PROTOCOLS = ['ssh', 'http', 'nil'] as const;
/** A key type's restriction values: no restriction (0), a supported size, or forbidden (-1). */
const keyRestrictions = (sizes: readonly number[]) => [0, ...sizes, -1] as const;

export const APPLICATION_SETTINGS = declareSettings('application_settings', {
  // Accounts and sign-in.
  admin_mode: bool(false),
  signup_enabled: bool(true),
  require_admin_approval_after_user_signup: bool(true),
  send_user_confirmation_email: bool(false),
  password_authentication_enabled_for_web: bool(true),
  password_authentication_enabled_for_git: bool(true),
  minimum_password_length: int(8, { minimum: 8, maximum: 128 }),
  require_two_factor_authentication: bool(false, { requires: ['two_factor_grace_period'] }),
  two_factor_grace_period: int(48),
  session_expire_delay: int(10080, { minimum: 0 }),
  user_default_external: bool(false),
  user_oauth_applications: bool(true),
  user_show_add_ssh_key_message: bool(true),
  user_deactivation_emails_enabled: bool(true),
  deactivate_dormant_users: bool(false),
  disable_feed_token: bool(false),
  disabled_oauth_sign_in_sources: list([]),
  domain_allowlist: list([]),
  domain_denylist_enabled: bool(false, { requires: ['domain_denylist'] }),
  domain_denylist: list([]),
  after_sign_out_path: strOrNull(null),
  after_sign_up_text: strOrNull(null),
  sign_in_text: strOrNull(null),
  home_page_url: strOrNull(null),
  help_page_text: strOrNull(null),
  help_page_hide_commercial_content: bool(false),
  help_page_support_url: strOrNull(null),
  abuse_notification_email: strOrNull(null),
  gravatar_enabled: bool(true),
  enforce_terms: bool(false),
  terms: strOrNull(null),
  personal_access_token_prefix: strOrNull(null),
  // ssh or http alone; the word nil (stored as null) allows both.
  enabled_git_access_protocol: strOrNull(null, { values: GIT_ACCESS_PROTOCOLS }),
  // Key restrictions: the smallest size allowed, 0 for any, -1 forbids the type.
  rsa_key_restriction: int(0, { values: keyRestrictions([1024, 2048, 3072, 4096]) }),
  dsa_key_restriction: int(0, { values: keyRestrictions([1024, 2048, 3072]) }),
  ecdsa_key_restriction: int(0, { values: keyRestrictions([256, 384, 521]) }),
  ed25519_key_restriction: int(0, { values: keyRestrictions([256]) }),
  // Defaults of new projects, groups and users.
  default_branch_name: strOrNull(null),
  default_branch_protection: int(2, { values: BRANCH_PROTECTION_LEVELS }),
  default_ci_config_path: strOrNull(null),
  default_project_visibility: visibility(),
  default_group_visibility: visibility(),
  default_snippet_visibility: visibility(),
  restricted_visibility_levels: list([], { values: VISIBILITY_NAMES }),
  // 0 no one, 1 maintainers, 2 developers and maintainers.
  default_project_creation: int(2, { values: [0, 1, 2] }),
  default_projects_limit: int(100000, { minimum: 0 }),
  default_artifacts_expire_in: str('30 days'),
  archive_builds_in_human_readable: strOrNull(null),
  keep_latest_artifact: bool(true),
  shared_runners_enabled: bool(true, { requires: ['shared_runners_text'] }),
  shared_runners_text: strOrNull(null),
  auto_devops_enabled: bool(true),
  auto_devops_domain: strOrNull(null),
  delayed_project_deletion: bool(false),
  deletion_adjourned_period: int(7, { minimum: 0, maximum: 90 }),
  import_sources: list(IMPORT_SOURCES, { values: IMPORT_SOURCES }),
  project_export_enabled: bool(true),
  mirror_available: bool(true),
  commit_email_hostname: strOrNull(null),
  // Sizes and limits.
  max_attachment_size: int(10, { minimum: 1 }),
  max_artifacts_size: int(100, { minimum: 1 }),
  max_pages_size: int(100, { minimum: 0 }),
  max_import_size: int(0, { minimum: 0 }),
  diff_max_patch_bytes: int(204800, { minimum: 102400, maximum: 104857600 }),
  diff_max_files: int(1000),
  diff_max_lines: int(50000),
  snippet_size_limit: int(52428800, { minimum: 1 }),
  wiki_page_max_content_bytes: int(52428800, { minimum: 1024 }),
  issues_create_limit: int(300, { minimum: 0 }),
  raw_blob_request_limit: int(300, { minimum: 0 }),
  project_export_limit: int(6),
  project_import_limit: int(6),
  project_download_export_limit: int(1),
  group_export_limit: int(6),
  group_import_limit: int(6),
  group_download_export_limit: int(1),
  push_event_hooks_limit: int(3),
  push_event_activities_limit: int(3),
  container_registry_token_expire_delay: int(5, { minimum: 1 }),
  container_expiration_policies_enable_historic_entries: bool(false),
  terminal_max_session_time: int(0),
  polling_interval_multiplier: num(1),
  first_day_of_week: int(0, { values: [0, 1, 6] }),
  local_markdown_version: int(0, { minimum: 0, maximum: 65535 }),
  // Rate limits.
  throttle_authenticated_api_enabled: bool(false),
  throttle_authenticated_api_requests_per_period: int(7200),
  throttle_authenticated_api_period_in_seconds: int(3600),
  throttle_authenticated_web_enabled: bool(false),
  throttle_authenticated_web_requests_per_period: int(7200),
  throttle_authenticated_web_period_in_seconds: int(3600),
  throttle_unauthenticated_enabled: bool(false),
  throttle_unauthenticated_requests_per_period: int(3600),
  throttle_unauthenticated_period_in_seconds: int(3600),
  throttle_protected_paths_enabled: bool(false),
  throttle_protected_paths_requests_per_period: int(10),
  throttle_protected_paths_period_in_seconds: int(60),
  rate_limiting_response_text: strOrNull(null),
  unique_ips_limit_enabled: bool(false),
  unique_ips_limit_per_user: int(10),
  unique_ips_limit_time_window: int(3600),
  // Repositories and housekeeping.
  repository_storages_weighted: weights({ default: 100 }),
  repository_checks_enabled: bool(true),
  hashed_storage_enabled: bool(true),
  authorized_keys_enabled: bool(true),
  housekeeping_enabled: bool(true, {
    requires: ['housekeeping_bitmaps_enabled', 'housekeeping_full_repack_period', 'housekeeping_gc_period', 'housekeeping_incremental_repack_period'],
  }),
  housekeeping_bitmaps_enabled: bool(true),
  housekeeping_incremental_repack_period: int(10, { minimum: 1 }),
  housekeeping_full_repack_period: int(50, { minimum: 1 }),
  housekeeping_gc_period: int(200, { minimum: 1 }),
  gitaly_timeout_default: int(55, { minimum: 0 }),
  gitaly_timeout_medium: int(30, { minimum: 0 }),
  gitaly_timeout_fast: int(10, { minimum: 0 }),
  // Outbound requests.
  allow_local_requests_from_web_hooks_and_services: bool(false),
  allow_local_requests_from_system_hooks: bool(true),
  outbound_local_requests_whitelist: list([]),
  dns_rebinding_protection_enabled: bool(true),
  // Integrations.
  akismet_enabled: bool(false, { requires: ['akismet_api_key'] }),
  akismet_api_key: strOrNull(null),
  recaptcha_enabled: bool(false, { requires: ['recaptcha_site_key', 'recaptcha_private_key'] }),
  login_recaptcha_protection_enabled: bool(false, { requires: ['recaptcha_site_key', 'recaptcha_private_key'] }),
  recaptcha_site_key: strOrNull(null),
  recaptcha_private_key: strOrNull(null),
  spam_check_endpoint_enabled: bool(false, { requires: ['spam_check_endpoint_url'] }),
  spam_check_endpoint_url: strOrNull(null),
  asset_proxy_enabled: bool(false, { requires: ['asset_proxy_url'] }),
  asset_proxy_url: strOrNull(null),
  asset_proxy_secret_key: strOrNull(null, { secret: true }),
  asset_proxy_allowlist: list([]),
  plantuml_enabled: bool(false, { requires: ['plantuml_url'] }),
  plantuml_url: strOrNull(null),
  kroki_enabled: bool(false),
  kroki_url: strOrNull(null),
  sourcegraph_enabled: bool(false, { requires: ['sourcegraph_url'] }),
  sourcegraph_url: strOrNull(null),
  sourcegraph_public_only: bool(true),
  gitpod_enabled: bool(false, { requires: ['gitpod_url'] }),
  gitpod_url: str('https://gitpod.io/'),
  eks_integration_enabled: bool(false, { requires: ['eks_account_id', 'eks_access_key_id', 'eks_secret_access_key'] }),
  eks_account_id: strOrNull(null),
  eks_access_key_id: strOrNull(null),
  eks_secret_access_key: strOrNull(null, { secret: true }),
  snowplow_enabled: bool(false, { requires: ['snowplow_collector_hostname'] }),
  snowplow_collector_hostname: strOrNull(null),
  npm_package_requests_forwarding: bool(true),
  pypi_package_requests_forwarding: bool(true),
  external_authorization_service_enabled: bool(false),
  external_authorization_service_url: strOrNull(null),
  external_authorization_service_default_label: strOrNull(null),
  external_authorization_service_timeout: num(0.5),
  external_pipeline_validation_service_url: strOrNull(null),
  external_pipeline_validation_service_token: strOrNull(null),
  external_pipeline_validation_service_timeout: intOrNull(null),
  usage_ping_enabled: bool(true),
  version_check_enabled: bool(true),
  html_emails_enabled: bool(true),
  email_author_in_body: bool(false),
  floc_enabled: bool(false),
  performance_bar_allowed_group_id: intOrNull(null),
  // Premium settings, kept so that clients that send them are answered.
  allow_group_owners_to_manage_ldap: bool(true),
  automatic_purchased_storage_allocation: bool(false),
  check_namespace_plan: bool(false),
  file_template_project_id: intOrNull(null),
  geo_node_allowed_ips: str('0.0.0.0/0, ::/0'),
  geo_status_timeout: int(10),
});

export type ApplicationSettings = Values<typeof APPLICATION_SETTINGS.specs>;

/** The branch a new repository starts with when the instance names none (the platform's, since 14.0). */
export const FALLBACK_DEFAULT_BRANCH = 'main';

/** The instance's name for a new repository's first branch. */
export const defaultBranchName = (s: Pick<ApplicationSettings, 'default_branch_name'>): string => s.default_branch_name || FALLBACK_DEFAULT_BRANCH;

/** default_project_creation (0, 1, 2) as a group's project_creation_level. */
/**
 * Why a visibility level may not be chosen by this caller: the level is among the instance's
 * restricted ones and the caller is no administrator. Null when it may.
 */
export function restrictedVisibility(s: Pick<ApplicationSettings, 'restricted_visibility_levels'>, level: number, isAdmin: boolean): string | null {
  const name = visibilityName(level);
  return !isAdmin && s.restricted_visibility_levels.includes(name) ? `${name} has been restricted by your GitLab administrator` : null;
}

/** Whether anonymous callers may read user profiles: not when the instance restricts public. */
export async function anonymousMayReadUsers(db: Kysely<DB>): Promise<boolean> {
  return !(await applicationSettings(db)).restricted_visibility_levels.includes('public');
}

/** The settings that decide who may act (core/auth reads them through this, once per request, from memory). */
export async function accessPolicy(db: Kysely<DB>): Promise<AccessPolicy> {
  const s = await applicationSettings(db);
  return { adminMode: s.admin_mode, enforceTerms: s.enforce_terms };
}

// ---- Repository storages -----------------------------------------------------------------------

/** What the model says of storage weights: names the instance does not have, weights outside 0..100. */
export function storageWeightErrors(weights: Readonly<Record<string, number>>, storages: readonly string[]): string[] {
  const messages: string[] = [];
  const unknown = Object.keys(weights).filter((name) => !storages.includes(name));
  if (unknown.length > 0) messages.push(`can't include: ${unknown.join(', ')}`);
  for (const [name, weight] of Object.entries(weights)) if (weight < 0 || weight > 100) messages.push(`value for '${name}' must be between 0 and 100`);
  return messages;
}

/**
 * The storage a repository goes to (the platform's pick_repository_storage): one of the configured
 * storages, drawn with the chance its weight gives it (repository_storages_weighted). A move passes
 * its source as `except`, which is never drawn: without another weighted storage any other
 * configured one is taken, and `except` itself only when nothing else is configured. Without
 * weights and without `except`, `default`. `random` is a number in [0, 1).
 */
export function chooseRepositoryStorage(
  s: Pick<ApplicationSettings, 'repository_storages_weighted'>,
  storages: readonly string[],
  random = Math.random(),
  except?: string,
): string {
  const candidates = Object.entries(s.repository_storages_weighted as Readonly<Record<string, number>>).filter(
    ([name, weight]) => weight > 0 && storages.includes(name) && name !== except,
  );
  const total = candidates.reduce((sum, [, weight]) => sum + weight, 0);
  let point = random * total;
  for (const [name, weight] of candidates) {
    if (point < weight) return name;
    point -= weight;
  }
  const last = candidates.at(-1)?.[0];
  if (last !== undefined) return last;
  return except === undefined ? DEFAULT_STORAGE : (storages.find((name) => name !== except) ?? except);
}

// ---- Sign-up restrictions ----------------------------------------------------------------------

/** Whether an address's domain matches one of the patterns (`*` any characters, case ignored). */
function domainMatches(patterns: readonly string[], email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return patterns.some((pattern) => {
    const source = pattern.trim().replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === '*' ? '.*?' : `\\${c}`));
    return new RegExp(`^${source}$`, 'i').test(domain);
  });
}

/**
 * Why an address may not sign up, as the email field's message (the platform's words), or null:
 * a domain on the denylist (when enabled), or, when an allowlist is set, a domain not on it.
 * The allowlist decides when both apply. Accounts an administrator creates are not checked.
 */
export function signUpDomainError(s: Pick<ApplicationSettings, 'domain_allowlist' | 'domain_denylist' | 'domain_denylist_enabled'>, email: string): string | null {
  let error: string | null = null;
  if (s.domain_denylist_enabled && domainMatches(s.domain_denylist, email)) error = 'is not from an allowed domain.';
  if (s.domain_allowlist.length > 0) error = domainMatches(s.domain_allowlist, email) ? null : 'domain is not authorized for sign-up';
  return error;
}

export const PROJECT_CREATION_LEVELS = ['noone', 'maintainer', 'developer'] as const;
export const defaultProjectCreationLevel = (s: Pick<ApplicationSettings, 'default_project_creation'>) => PROJECT_CREATION_LEVELS[s.default_project_creation] ?? 'developer';

// ---- The cached reader -----------------------------------------------------------------------------

/** How long a process trusts its copy of the row before checking the generation. */
export const RECHECK_MS = 1000;

interface Cached {
  values: ApplicationSettings;
  generation: number;
  /** performance.now() when the generation was last known to be current. */
  checkedAt: number;
}

/** One copy per database (each test's application has its own). Pass the database, not a transaction. */
const cache = new WeakMap<Kysely<DB>, Cached>();
const inFlight = new WeakMap<Kysely<DB>, Promise<ApplicationSettings>>();

/** Forgets this database's copy, so that the next read takes the row (after a test reset replaced it). */
export function forgetApplicationSettings(db: Kysely<DB>): void {
  cache.delete(db);
}

/** The instance's settings: from memory, checked against the database's generation at most every RECHECK_MS. */
export function applicationSettings(db: Kysely<DB>): Promise<ApplicationSettings> {
  const cached = cache.get(db);
  if (cached && performance.now() - cached.checkedAt < RECHECK_MS) return Promise.resolve(cached.values);
  let pending = inFlight.get(db);
  if (!pending) {
    pending = refresh(db, cached).finally(() => inFlight.delete(db));
    inFlight.set(db, pending);
  }
  return pending;
}

async function refresh(db: Kysely<DB>, cached: Cached | undefined): Promise<ApplicationSettings> {
  const startedAt = performance.now();
  if (cached) {
    const row = await db.selectFrom('application_settings').select('generation').where('id', '=', 1).executeTakeFirst();
    if (row && Number(row.generation) === cached.generation) {
      cached.checkedAt = startedAt;
      return cached.values;
    }
  }
  const row = await readRow(db);
  const fresh: Cached = { values: APPLICATION_SETTINGS.read(row), generation: Number(row.generation), checkedAt: startedAt };
  cache.set(db, fresh);
  return fresh.values;
}

/** The row, created from the defaults when it is missing (after `quarry reset`). */
async function readRow(db: Kysely<DB>): Promise<Record<string, unknown>> {
  const existing = await db.selectFrom('application_settings').selectAll().where('id', '=', 1).executeTakeFirst();
  if (existing) return existing;
  const at = new Date().toISOString();
  await db
    .insertInto('application_settings')
    .values({ id: 1, generation: 1, created_at: at, updated_at: at, ...APPLICATION_SETTINGS.defaultColumns() })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return db.selectFrom('application_settings').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
}

/** The row's id and timestamps, which the settings entity shows beside the settings. */
export async function applicationSettingsRecord(db: Kysely<DB>): Promise<{ id: number; created_at: string; updated_at: string }> {
  const row = await readRow(db);
  return { id: Number(row.id), created_at: String(row.created_at), updated_at: String(row.updated_at) };
}

/**
 * Changes some settings and moves the generation forward, so that every process re-reads the row
 * (this one at once). Tests set instance settings through this too.
 */
export async function updateApplicationSettings(db: Kysely<DB>, changes: Partial<ApplicationSettings>, now: Date): Promise<ApplicationSettings> {
  await readRow(db);
  await db
    .updateTable('application_settings')
    .set({ ...APPLICATION_SETTINGS.columns(changes), generation: sql<number>`generation + 1`, updated_at: now.toISOString() })
    .where('id', '=', 1)
    .execute();
  cache.delete(db);
  // Other nodes forget their copy when the notification arrives (listenForSettingsChanges), well
  // before their next timed check; on SQLite the timed check alone serves.
  // The notification names the schema: instances in other schemas of the database ignore it.
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`select pg_notify(${SETTINGS_CHANNEL}, current_schema())`.execute(db);
  return applicationSettings(db);
}

/** The PostgreSQL channel that tells every node the settings changed. */
export const SETTINGS_CHANNEL = 'quarry_application_settings';

/**
 * Makes this process forget its copy whenever any node changes the settings; the database's
 * listen() is null on SQLite (the timed check serves there). Returns the removal, if listening.
 */
export async function listenForSettingsChanges(
  db: Kysely<DB>,
  listen: (channel: string, onNotify: (payload: string) => void) => Promise<(() => Promise<void>) | null>,
): Promise<(() => Promise<void>) | null> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return null;
  const { schema } = (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0];
  return listen(SETTINGS_CHANNEL, (payload) => {
    if (payload === schema) forgetApplicationSettings(db);
  }).catch(() => null);
}
