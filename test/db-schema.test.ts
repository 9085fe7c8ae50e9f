// The live schema of the current dialect (tables, columns, nullability and broad type) against
// src/db/schema.ts. TypeScript types vanish at run time, so COLUMNS restates schema.ts as data,
// and the type checker holds the two together: a table or column missing from COLUMNS, one it
// has that schema.ts lacks, a wrong kind or a wrong nullability is a type error. The test then
// holds COLUMNS and the migrated database together, on SQLite and on PostgreSQL. (On SQLite a
// column's declared `boolean` is also what makes the adapter return true/false for it.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Kysely, PostgresAdapter, type Selectable, sql } from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { type TestApp, createTestApp } from './harness.ts';

type Kind = 'integer' | 'real' | 'text' | 'boolean' | 'bytes';

/** What a column's TypeScript type allows it to be in the database; `?` marks a nullable column. */
type KindOf<T> = [T] extends [Uint8Array] ? 'bytes' : [T] extends [boolean] ? 'boolean' : [T] extends [number] ? 'integer' | 'real' : [T] extends [string] ? 'text' : never;
type ColumnSpec<T> = null extends T ? `${KindOf<NonNullable<T>>}?` : KindOf<T>;
/**
 * The settings tables have a column per declared setting (domain/settings), and schema.ts types
 * them by the declarations; the 0008 migration's test holds those columns and declarations together.
 */
const DECLARED_TABLES = ['project_features', 'project_ci_cd_settings', 'project_settings', 'namespace_settings', 'application_settings'] as const;
type Columns = { [Table in Exclude<keyof DB, (typeof DECLARED_TABLES)[number]>]: { [Column in keyof Selectable<DB[Table]>]-?: ColumnSpec<Selectable<DB[Table]>[Column]> } };

const COLUMNS = {
  project_exports: {
    id: 'integer', project_id: 'integer', user_id: 'integer?', status: 'text', description: 'text?', upload_url: 'text?', upload_method: 'text?',
    file_path: 'text?', file_name: 'text?', file_size: 'integer?', exported_at: 'text?', last_error: 'text?', created_at: 'text', updated_at: 'text',
  },
  project_import_states: {
    project_id: 'integer', user_id: 'integer?', status: 'text', import_type: 'text', correlation_id: 'text', last_error: 'text?', file_path: 'text?',
    import_url: 'text?', original_path: 'text?', original_name: 'text?', override_params: 'text?', created_at: 'text', updated_at: 'text',
  },
  import_failures: {
    id: 'integer', project_id: 'integer?', group_id: 'integer?', correlation_id: 'text', relation_key: 'text', relation_index: 'integer?',
    exception_class: 'text', exception_message: 'text', source: 'text', created_at: 'text',
  },
  group_exports: {
    id: 'integer', group_id: 'integer', user_id: 'integer?', status: 'text', file_path: 'text?', file_name: 'text?', file_size: 'integer?',
    exported_at: 'text?', last_error: 'text?', created_at: 'text', updated_at: 'text',
  },
  group_import_states: { group_id: 'integer', user_id: 'integer?', status: 'text', last_error: 'text?', file_path: 'text?', created_at: 'text', updated_at: 'text' },
  merge_requests: {
    id: 'integer', project_id: 'integer', iid: 'integer', author_id: 'integer?', title: 'text', description: 'text?', state: 'text', source_branch: 'text',
    target_branch: 'text', milestone_id: 'integer?', draft: 'boolean', merge_status: 'text', merge_error: 'text?', rebase_in_progress: 'boolean', merge_when_pipeline_succeeds: 'boolean', merge_user_id: 'integer?',
    merge_params: 'text?', merged_by_id: 'integer?',
    merged_at: 'text?', closed_by_id: 'integer?', closed_at: 'text?', squash: 'boolean', force_remove_source_branch: 'boolean?',
    should_remove_source_branch: 'boolean?', sha: 'text?', merge_commit_sha: 'text?', squash_commit_sha: 'text?', base_sha: 'text?', start_sha: 'text?',
    head_sha: 'text?', discussion_locked: 'boolean?', updated_by_id: 'integer?', last_edited_at: 'text?', last_edited_by_id: 'integer?',
    created_at: 'text', updated_at: 'text',
  },
  merge_request_assignees: { merge_request_id: 'integer', user_id: 'integer' },
  web_hooks: {
    id: 'integer', type: 'text', project_id: 'integer?', group_id: 'integer?', url: 'text', token_encrypted: 'text?', push_events: 'boolean', push_events_branch_filter: 'text?',
    tag_push_events: 'boolean', issues_events: 'boolean', confidential_issues_events: 'boolean', merge_requests_events: 'boolean', note_events: 'boolean', confidential_note_events: 'boolean', job_events: 'boolean', pipeline_events: 'boolean', wiki_page_events: 'boolean', deployment_events: 'boolean', releases_events: 'boolean', member_events: 'boolean', subgroup_events: 'boolean', repository_update_events: 'boolean',
    enable_ssl_verification: 'boolean', recent_failures: 'integer', disabled_until: 'text?', created_at: 'text', updated_at: 'text',
  },
  web_hook_logs: {
    id: 'integer', web_hook_id: 'integer', trigger: 'text', url: 'text', request_headers: 'text', request_data: 'text', response_headers: 'text', response_body: 'text',
    response_status: 'text', execution_duration: 'real', internal_error_message: 'text?', created_at: 'text', updated_at: 'text',
  },
  alert_management_http_integrations: {
    id: 'integer', project_id: 'integer', name: 'text', active: 'boolean', endpoint_identifier: 'text', token_encrypted: 'text', payload_example: 'text',
    payload_attribute_mapping: 'text', created_at: 'text', updated_at: 'text',
  },
  alert_management_alerts: {
    id: 'integer', project_id: 'integer', iid: 'integer', title: 'text', description: 'text?', service: 'text?', monitoring_tool: 'text?', hosts: 'text',
    severity: 'text', status: 'text', events: 'integer', fingerprint: 'text?', started_at: 'text', ended_at: 'text?', payload: 'text', created_at: 'text',
    updated_at: 'text',
  },
  alert_management_alert_assignees: { id: 'integer', alert_id: 'integer', user_id: 'integer' },
  push_leases: { id: 'integer', repository: 'text', node: 'text', expires_at: 'text', created_at: 'text' },
  clusters: {
    id: 'integer', project_id: 'integer', user_id: 'integer?', name: 'text', domain: 'text?', enabled: 'boolean', managed: 'boolean', provider_type: 'text',
    environment_scope: 'text', management_project_id: 'integer?', api_url: 'text', ca_cert: 'text?', namespace: 'text?', authorization_type: 'text',
    token_encrypted: 'text', created_at: 'text', updated_at: 'text',
  },
  pages_domains: {
    id: 'integer', project_id: 'integer', domain: 'text', certificate: 'text?', key_encrypted: 'text?', certificate_source: 'text', certificate_valid_not_before: 'text?',
    certificate_valid_not_after: 'text?', auto_ssl_enabled: 'boolean', verification_code: 'text', verified_at: 'text?', enabled_until: 'text?', created_at: 'text', updated_at: 'text',
  },
  software_license_policies: { id: 'integer', project_id: 'integer', name: 'text', classification: 'text', created_at: 'text', updated_at: 'text' },
  security_scans: {
    id: 'integer', project_id: 'integer', pipeline_id: 'integer', build_id: 'integer', scan_type: 'text', status: 'text', errors: 'text', default_branch: 'boolean',
    created_at: 'text', warnings: 'text',
  },
  security_findings: {
    id: 'integer', scan_id: 'integer', project_id: 'integer', pipeline_id: 'integer', uuid: 'text', report_type: 'text', severity: 'text', confidence: 'text',
    name: 'text', location_file: 'text?', package_name: 'text?',
  },
  security_dependencies: {
    id: 'integer', scan_id: 'integer', project_id: 'integer', pipeline_id: 'integer', name: 'text', version: 'text?', package_manager: 'text', file_path: 'text',
  },
  vulnerability_scanners: { id: 'integer', project_id: 'integer', external_id: 'text', name: 'text', vendor: 'text', created_at: 'text', updated_at: 'text' },
  vulnerability_identifiers: {
    id: 'integer', project_id: 'integer', fingerprint: 'text', external_type: 'text', external_id: 'text', name: 'text', url: 'text?', created_at: 'text', updated_at: 'text',
  },
  vulnerabilities: {
    id: 'integer', project_id: 'integer', author_id: 'integer?', title: 'text', description: 'text?', state: 'text', severity: 'text', severity_level: 'integer',
    confidence: 'text', report_type: 'text', resolved_on_default_branch: 'boolean', updated_by_id: 'integer?', last_edited_by_id: 'integer?', last_edited_at: 'text?',
    start_date: 'text?', due_date: 'text?', resolved_by_id: 'integer?', resolved_at: 'text?', dismissed_by_id: 'integer?', dismissed_at: 'text?', confirmed_by_id: 'integer?',
    confirmed_at: 'text?', created_at: 'text', updated_at: 'text',
  },
  vulnerability_occurrences: {
    id: 'integer', project_id: 'integer', scanner_id: 'integer', primary_identifier_id: 'integer', vulnerability_id: 'integer?', report_type: 'text', severity: 'text',
    confidence: 'text', name: 'text', description: 'text?', uuid: 'text', project_fingerprint: 'text', location_fingerprint: 'text', metadata_version: 'text',
    raw_metadata: 'text', created_at: 'text', updated_at: 'text',
  },
  error_tracking_settings: {
    id: 'integer', project_id: 'integer', enabled: 'boolean', integrated: 'boolean', api_url: 'text?', project_name: 'text?', token_encrypted: 'text?', created_at: 'text', updated_at: 'text',
  },
  error_tracking_client_keys: { id: 'integer', project_id: 'integer', active: 'boolean', public_key: 'text', created_at: 'text', updated_at: 'text' },
  error_tracking_errors: {
    id: 'integer', project_id: 'integer', fingerprint: 'text', name: 'text', description: 'text', actor: 'text', platform: 'text', status: 'text', events_count: 'integer',
    first_seen_at: 'text', last_seen_at: 'text', created_at: 'text', updated_at: 'text',
  },
  error_tracking_error_events: {
    id: 'integer', error_id: 'integer', description: 'text', environment: 'text?', level: 'text?', occurred_at: 'text', payload: 'text', created_at: 'text',
  },
  plan_limits: {
    plan_name: 'text', conan_max_file_size: 'integer', generic_packages_max_file_size: 'integer', helm_max_file_size: 'integer', maven_max_file_size: 'integer',
    npm_max_file_size: 'integer', nuget_max_file_size: 'integer', pypi_max_file_size: 'integer', terraform_module_max_file_size: 'integer', updated_at: 'text',
  },
  packages: { id: 'integer', project_id: 'integer', name: 'text', version: 'text?', package_type: 'text', status: 'text', created_at: 'text', updated_at: 'text' },
  package_files: {
    id: 'integer', package_id: 'integer', file_name: 'text', size: 'integer', file_md5: 'text', file_sha1: 'text', file_sha256: 'text', file_path: 'text',
    pipeline_id: 'integer?', created_at: 'text', updated_at: 'text',
  },
  project_repository_storage_moves: {
    id: 'integer', project_id: 'integer', state: 'integer', source_storage_name: 'text', destination_storage_name: 'text', error_message: 'text?', created_at: 'text', updated_at: 'text',
  },
  snippet_repository_storage_moves: {
    id: 'integer', snippet_id: 'integer', state: 'integer', source_storage_name: 'text', destination_storage_name: 'text', error_message: 'text?', created_at: 'text', updated_at: 'text',
  },
  group_repository_storage_moves: {
    id: 'integer', group_id: 'integer', state: 'integer', source_storage_name: 'text', destination_storage_name: 'text', error_message: 'text?', created_at: 'text', updated_at: 'text',
  },
  group_wiki_repositories: { group_id: 'integer', repository_storage: 'text', read_only: 'boolean', created_at: 'text' },
  pages_deployments: { id: 'integer', project_id: 'integer', ci_build_id: 'integer?', sha: 'text', ref: 'text', directory: 'text', file_count: 'integer', size: 'integer', created_at: 'text' },
  keys: {
    id: 'integer', type: 'text', user_id: 'integer?', creator_id: 'integer?', title: 'text', key: 'text', fingerprint: 'text', fingerprint_sha256: 'text',
    public: 'boolean', expires_at: 'text?', created_at: 'text', updated_at: 'text',
  },
  deploy_keys_projects: { id: 'integer', deploy_key_id: 'integer', project_id: 'integer', can_push: 'boolean', created_at: 'text', updated_at: 'text' },
  boards: {
    id: 'integer', project_id: 'integer?', group_id: 'integer?', name: 'text', hide_backlog_list: 'boolean', hide_closed_list: 'boolean',
    milestone_id: 'integer?', assignee_id: 'integer?', weight: 'integer?', created_at: 'text', updated_at: 'text',
  },
  board_lists: {
    id: 'integer', board_id: 'integer', label_id: 'integer', position: 'integer', max_issue_count: 'integer', max_weight: 'integer',
    limit_metric: 'text?', created_at: 'text', updated_at: 'text',
  },
  project_approval_settings: {
    project_id: 'integer', approvals_before_merge: 'integer', reset_approvals_on_push: 'boolean', disable_overriding_approvers_per_merge_request: 'boolean',
    merge_requests_author_approval: 'boolean', merge_requests_disable_committers_approval: 'boolean', require_password_to_approve: 'boolean',
  },
  merge_request_approvals: { id: 'integer', merge_request_id: 'integer', user_id: 'integer', created_at: 'text' },
  badges: {
    id: 'integer', type: 'text', project_id: 'integer?', group_id: 'integer?', name: 'text?', link_url: 'text', image_url: 'text', created_at: 'text', updated_at: 'text',
  },
  notification_settings: {
    id: 'integer', user_id: 'integer', project_id: 'integer?', group_id: 'integer?', source_key: 'text', level: 'text', notification_email: 'text?',
    new_release: 'boolean?', new_note: 'boolean?', new_issue: 'boolean?', reopen_issue: 'boolean?', close_issue: 'boolean?', reassign_issue: 'boolean?', issue_due: 'boolean?', new_merge_request: 'boolean?', push_to_merge_request: 'boolean?', reopen_merge_request: 'boolean?', close_merge_request: 'boolean?', reassign_merge_request: 'boolean?', change_reviewer_merge_request: 'boolean?', merge_merge_request: 'boolean?', failed_pipeline: 'boolean?', fixed_pipeline: 'boolean?', success_pipeline: 'boolean?', moved_project: 'boolean?', merge_when_pipeline_succeeds: 'boolean?',
    created_at: 'text', updated_at: 'text',
  },
  uploads: {
    id: 'integer', project_id: 'integer', uploaded_by_user_id: 'integer?', secret: 'text', filename: 'text', size: 'integer', file_path: 'text', created_at: 'text',
  },
  background_job_stats: { kind: 'text', processed: 'integer', failed: 'integer' },
  broadcast_messages: {
    id: 'integer', message: 'text', starts_at: 'text', ends_at: 'text', color: 'text?', font: 'text?', target_access_levels: 'text',
    target_path: 'text?', broadcast_type: 'text', dismissable: 'boolean?', created_at: 'text', updated_at: 'text',
  },
  user_statuses: { user_id: 'integer', emoji: 'text', message: 'text?', availability: 'text', clear_status_at: 'text?', updated_at: 'text' },
  emails: {
    id: 'integer', user_id: 'integer', email: 'text', confirmed_at: 'text?', confirmation_token: 'text?', confirmation_sent_at: 'text?',
    created_at: 'text', updated_at: 'text',
  },
  gpg_keys: { id: 'integer', user_id: 'integer', key: 'text', primary_keyid: 'text', fingerprint: 'text', created_at: 'text', updated_at: 'text' },
  gpg_key_subkeys: { id: 'integer', gpg_key_id: 'integer', keyid: 'text', fingerprint: 'text' },
  gpg_signatures: {
    id: 'integer', project_id: 'integer', commit_sha: 'text', gpg_key_id: 'integer?', gpg_key_subkey_id: 'integer?', gpg_key_primary_keyid: 'text?',
    gpg_key_user_name: 'text?', gpg_key_user_email: 'text?', verification_status: 'text', created_at: 'text', updated_at: 'text',
  },
  deploy_tokens: {
    id: 'integer', name: 'text', username: 'text?', token_digest: 'text', project_id: 'integer?', group_id: 'integer?', creator_id: 'integer?',
    read_repository: 'boolean', read_registry: 'boolean', write_registry: 'boolean', read_package_registry: 'boolean', write_package_registry: 'boolean',
    revoked: 'boolean', expires_at: 'text?', created_at: 'text',
  },
  snippets: {
    id: 'integer', title: 'text', description: 'text?', author_id: 'integer', project_id: 'integer?', visibility_level: 'integer', file_name: 'text?',
    repository_storage: 'text', repository_read_only: 'boolean', user_agent: 'text?', ip_address: 'text?', created_at: 'text', updated_at: 'text',
  },
  todos: {
    id: 'integer', user_id: 'integer', project_id: 'integer', target_type: 'text', target_id: 'integer', author_id: 'integer', action: 'text',
    note_id: 'integer?', state: 'text', resolved_by_action: 'text?', created_at: 'text', updated_at: 'text',
  },
  todo_counts: { user_id: 'integer', state: 'text', project_id: 'integer', todos: 'integer' },
  merge_request_reviewers: { merge_request_id: 'integer', user_id: 'integer' },
  merge_requests_closing_issues: { merge_request_id: 'integer', issue_id: 'integer' },
  releases: {
    id: 'integer', project_id: 'integer', tag: 'text', name: 'text?', description: 'text?', author_id: 'integer?', sha: 'text?', released_at: 'text',
    created_at: 'text', updated_at: 'text',
  },
  release_links: { id: 'integer', release_id: 'integer', name: 'text', url: 'text', filepath: 'text?', link_type: 'text', created_at: 'text', updated_at: 'text' },
  milestone_releases: { milestone_id: 'integer', release_id: 'integer' },
  release_evidences: { id: 'integer', release_id: 'integer', summary: 'text', summary_sha: 'text', created_at: 'text', updated_at: 'text' },
  internal_ids: { id: 'integer', project_id: 'integer?', namespace_id: 'integer?', usage: 'text', last_value: 'integer' },
  labels: { id: 'integer', project_id: 'integer?', group_id: 'integer?', title: 'text', color: 'text', description: 'text?', created_at: 'text', updated_at: 'text' },
  label_priorities: { id: 'integer', project_id: 'integer', label_id: 'integer', priority: 'integer', created_at: 'text', updated_at: 'text' },
  milestones: {
    id: 'integer', project_id: 'integer?', group_id: 'integer?', iid: 'integer', title: 'text', description: 'text?', state: 'text', due_date: 'text?',
    start_date: 'text?', created_at: 'text', updated_at: 'text',
  },
  issues: {
    id: 'integer', project_id: 'integer', iid: 'integer', author_id: 'integer?', title: 'text', description: 'text?', state: 'text', issue_type: 'text',
    confidential: 'boolean', discussion_locked: 'boolean?', due_date: 'text?', weight: 'integer?', milestone_id: 'integer?', time_estimate: 'integer',
    moved_to_id: 'integer?', duplicated_to_id: 'integer?', closed_at: 'text?', closed_by_id: 'integer?', updated_by_id: 'integer?',
    last_edited_at: 'text?', last_edited_by_id: 'integer?', created_at: 'text', updated_at: 'text',
  },
  issue_assignees: { issue_id: 'integer', user_id: 'integer' },
  label_links: { id: 'integer', label_id: 'integer', target_type: 'text', target_id: 'integer', created_at: 'text', updated_at: 'text' },
  issue_label_counts: { project_id: 'integer', label_id: 'integer', state: 'text', confidential: 'boolean', issues: 'integer' },
  notes: {
    id: 'integer', project_id: 'integer', noteable_type: 'text', noteable_id: 'integer?', commit_id: 'text?', author_id: 'integer?', body: 'text',
    system: 'boolean', confidential: 'boolean', resolvable: 'boolean', resolved_at: 'text?', resolved_by_id: 'integer?', type: 'text?',
    discussion_id: 'text?', path: 'text?', line: 'integer?', line_type: 'text?', position: 'text?', updated_by_id: 'integer?', created_at: 'text', updated_at: 'text',
  },
  resource_label_events: { id: 'integer', issue_id: 'integer?', merge_request_id: 'integer?', user_id: 'integer?', label_id: 'integer?', action: 'text', created_at: 'text' },
  resource_state_events: { id: 'integer', issue_id: 'integer?', merge_request_id: 'integer?', user_id: 'integer?', state: 'text', created_at: 'text' },
  resource_milestone_events: {
    id: 'integer', issue_id: 'integer?', merge_request_id: 'integer?', user_id: 'integer?', milestone_id: 'integer?', action: 'text', state: 'text', created_at: 'text',
  },
  subscriptions: {
    id: 'integer', user_id: 'integer', subscribable_type: 'text', subscribable_id: 'integer', project_id: 'integer?', subscribed: 'boolean',
    created_at: 'text', updated_at: 'text',
  },
  events: {
    id: 'integer', project_id: 'integer?', author_id: 'integer', action: 'text', target_type: 'text?', target_id: 'integer?',
    target_iid: 'integer?', target_title: 'text?', push_data: 'text?', created_at: 'text', updated_at: 'text',
  },
  group_custom_attributes: { id: 'integer', group_id: 'integer', key: 'text', value: 'text', created_at: 'text', updated_at: 'text' },
  identities: { id: 'integer', user_id: 'integer', provider: 'text', extern_uid: 'text', created_at: 'text' },
  members: {
    id: 'integer', source_type: 'text', source_id: 'integer', user_id: 'integer?', access_level: 'integer', expires_at: 'text?',
    created_by_id: 'integer?', created_at: 'text', updated_at: 'text', invite_email: 'text?', invite_token: 'text?', invite_accepted_at: 'text?',
  },
  membership_generation: { id: 'integer', generation: 'integer' },
  namespace_member_counts: {
    namespace_id: 'integer', generation: 'integer', counted_on: 'text', billable: 'integer', with_descendants: 'integer',
  },
  namespaces: {
    id: 'integer', type: 'text', name: 'text', path: 'text', owner_id: 'integer?', parent_id: 'integer?', traversal_path: 'text',
    full_path: 'text', full_name: 'text', description: 'text', visibility_level: 'integer', request_access_enabled: 'boolean',
    project_creation_level: 'text', subgroup_creation_level: 'text', created_at: 'text', updated_at: 'text',
  },
  oauth_access_grants: {
    id: 'integer', application_id: 'integer', user_id: 'integer', code_digest: 'text', redirect_uri: 'text', scopes: 'text',
    code_challenge: 'text?', code_challenge_method: 'text?', expires_in: 'integer', revoked_at: 'text?', created_at: 'text',
  },
  oauth_access_tokens: {
    id: 'integer', user_id: 'integer', token_digest: 'text', refresh_token_digest: 'text?', scopes: 'text', expires_in: 'integer?',
    revoked_at: 'text?', created_at: 'text', application_id: 'integer?',
  },
  oauth_applications: {
    id: 'integer', name: 'text', uid: 'text', secret_digest: 'text', redirect_uri: 'text', scopes: 'text', confidential: 'boolean',
    trusted: 'boolean', owner_id: 'integer?', owner_type: 'text?', created_at: 'text', updated_at: 'text',
  },
  personal_access_tokens: {
    id: 'integer', user_id: 'integer', name: 'text', token_digest: 'text', scopes: 'text', impersonation: 'boolean', revoked: 'boolean',
    expires_at: 'text?', last_used_at: 'text?', created_at: 'text', updated_at: 'text',
  },
  project_authorizations: { user_id: 'integer', project_id: 'integer', access_level: 'integer', visibility_level: 'integer' },
  project_custom_attributes: { id: 'integer', project_id: 'integer', key: 'text', value: 'text', created_at: 'text', updated_at: 'text' },
  project_statistics: {
    project_id: 'integer', commit_count: 'integer', storage_size: 'integer', repository_size: 'integer', wiki_size: 'integer',
    lfs_objects_size: 'integer', build_artifacts_size: 'integer', pipeline_artifacts_size: 'integer', packages_size: 'integer',
    snippets_size: 'integer', uploads_size: 'integer',
  },
  project_topics: { project_id: 'integer', name: 'text', position: 'integer' },
  project_visibility_counts: { visibility_level: 'integer', projects: 'integer' },
  projects: {
    id: 'integer', namespace_id: 'integer', name: 'text', path: 'text', full_path: 'text', name_with_namespace: 'text', description: 'text',
    visibility_level: 'integer', creator_id: 'integer?', default_branch: 'text?', archived: 'boolean',
    repository_storage: 'text', runners_token_encrypted: 'text', runners_token_digest: 'text', settings_revision: 'text', import_status: 'text', star_count: 'integer', created_at: 'text', updated_at: 'text',
    last_activity_at: 'text', repository_read_only: 'boolean', empty_repo: 'boolean',
  },
  protected_branch_access_levels: { id: 'integer', protected_branch_id: 'integer', action: 'text', access_level: 'integer', deploy_key_id: 'integer?' },
  protected_branches: {
    id: 'integer', project_id: 'integer', name: 'text', allow_force_push: 'boolean', code_owner_approval_required: 'boolean',
    created_at: 'text', updated_at: 'text',
  },
  protected_tag_create_access_levels: { id: 'integer', protected_tag_id: 'integer', access_level: 'integer' },
  protected_tags: { id: 'integer', project_id: 'integer', name: 'text', created_at: 'text', updated_at: 'text' },
  scheduled_task_runs: { name: 'text', next_run_at: 'text' },
  background_jobs: {
    id: 'integer', kind: 'text', payload: 'text', state: 'text', run_at: 'text', attempts: 'integer', max_attempts: 'integer',
    locked_by: 'text?', last_error: 'text?', dedupe_key: 'text?', created_at: 'text', updated_at: 'text',
  },
  instance_identity: { id: 'integer', instance_id: 'text', created_at: 'text' },
  user_custom_attributes: { id: 'integer', user_id: 'integer', key: 'text', value: 'text', created_at: 'text', updated_at: 'text' },
  users: {
    id: 'integer', username: 'text', name: 'text', email: 'text', encrypted_password: 'text?', state: 'text', admin: 'boolean',
    external: 'boolean', user_type: 'text', bio: 'text', location: 'text', public_email: 'text?', commit_email: 'text?', skype: 'text',
    linkedin: 'text', twitter: 'text', website_url: 'text', organization: 'text', job_title: 'text', note: 'text?',
    private_profile: 'boolean', projects_limit: 'integer', can_create_group: 'boolean', theme_id: 'integer', color_scheme_id: 'integer',
    two_factor_enabled: 'boolean', confirmed_at: 'text?', confirmation_token: 'text?', password_expires_at: 'text?', last_sign_in_at: 'text?',
    current_sign_in_at: 'text?', last_sign_in_ip: 'text?', current_sign_in_ip: 'text?', sign_in_count: 'integer', last_activity_on: 'text?',
    created_by_id: 'integer?', created_at: 'text', updated_at: 'text', terms_accepted_at: 'text?',
  },
  users_star_projects: { user_id: 'integer', project_id: 'integer', created_at: 'text' },
  web_sessions: { id: 'integer', user_id: 'integer', session_digest: 'text', csrf_token: 'text', expires_at: 'text', created_at: 'text', admin_mode_until: 'text?' },
  ci_pipelines: {
    id: 'integer', project_id: 'integer', iid: 'integer', ref: 'text', sha: 'text', before_sha: 'text', tag: 'boolean', protected: 'boolean',
    source: 'text', status: 'text', failure_reason: 'text?', yaml_errors: 'text?', user_id: 'integer?', config_path: 'text?',
    source_job_id: 'integer?', source_pipeline_id: 'integer?', source_project_id: 'integer?', trigger_id: 'integer?', schedule_id: 'integer?',
    duration: 'integer?', committed_at: 'text?', started_at: 'text?', finished_at: 'text?', created_at: 'text', updated_at: 'text',
    locked: 'boolean', merge_request_id: 'integer?',
  },
  ci_pipeline_variables: { id: 'integer', pipeline_id: 'integer', key: 'text', value_encrypted: 'text', variable_type: 'text' },
  ci_builds: {
    id: 'integer', pipeline_id: 'integer', project_id: 'integer', type: 'text', name: 'text', stage: 'text', stage_idx: 'integer',
    status: 'text', ref: 'text', tag: 'boolean', protected: 'boolean', when: 'text', allow_failure: 'boolean', scheduling_type: 'text',
    needs: 'text?', options: 'text', yaml_variables: 'text', tag_list: 'text', coverage_regex: 'text?', coverage: 'real?',
    resource_group: 'text?', environment: 'text?', interruptible: 'boolean', retried: 'boolean', user_id: 'integer?', runner_id: 'integer?',
    token_digest: 'text?', failure_reason: 'text?', exit_code: 'integer?', timeout: 'integer?', timeout_source: 'text?',
    trace_size: 'integer', downstream_pipeline_id: 'integer?', target_url: 'text?', description: 'text?', artifacts_expire_at: 'text?',
    erased_at: 'text?', erased_by_id: 'integer?', scheduled_at: 'text?', queued_at: 'text?', started_at: 'text?', finished_at: 'text?',
    created_at: 'text', updated_at: 'text',
  },
  ci_pending_builds: { build_id: 'integer', project_id: 'integer', protected: 'boolean', tag_list: 'text', created_at: 'text' },
  ci_build_trace_chunks: { id: 'integer', build_id: 'integer', chunk_index: 'integer', data: 'bytes' },
  ci_job_artifacts: {
    id: 'integer', build_id: 'integer', project_id: 'integer', file_type: 'text', file_format: 'text', filename: 'text', size: 'integer',
    sha256: 'text', file_path: 'text', expire_at: 'text?', created_at: 'text',
  },
  ci_build_report_results: { build_id: 'integer', project_id: 'integer', data: 'text' },
  ci_job_variables: { id: 'integer', job_id: 'integer', key: 'text', value_encrypted: 'text', source: 'text' },
  ci_runners: {
    id: 'integer', token_digest: 'text', runner_type: 'text', description: 'text', maintenance_note: 'text?', active: 'boolean',
    locked: 'boolean', run_untagged: 'boolean', access_level: 'text', maximum_timeout: 'integer?', tag_list: 'text', name: 'text?',
    version: 'text?', revision: 'text?', platform: 'text?', architecture: 'text?', executor_type: 'text?', features: 'text?',
    ip_address: 'text?', contacted_at: 'text?', created_at: 'text', updated_at: 'text',
  },
  ci_runner_projects: { id: 'integer', runner_id: 'integer', project_id: 'integer', created_at: 'text' },
  ci_runner_namespaces: { id: 'integer', runner_id: 'integer', namespace_id: 'integer' },
  ci_variables: {
    id: 'integer', owner_type: 'text', owner_id: 'integer', key: 'text', value_encrypted: 'text', variable_type: 'text', protected: 'boolean',
    masked: 'boolean', environment_scope: 'text', created_at: 'text', updated_at: 'text',
  },
  ci_triggers: {
    id: 'integer', project_id: 'integer', owner_id: 'integer?', description: 'text', token_digest: 'text', token_encrypted: 'text',
    last_used: 'text?', created_at: 'text', updated_at: 'text',
  },
  ci_pipeline_schedules: {
    id: 'integer', project_id: 'integer', owner_id: 'integer?', description: 'text', ref: 'text', cron: 'text', cron_timezone: 'text',
    next_run_at: 'text?', active: 'boolean', created_at: 'text', updated_at: 'text',
  },
  ci_pipeline_schedule_variables: {
    id: 'integer', schedule_id: 'integer', key: 'text', value_encrypted: 'text', variable_type: 'text', created_at: 'text', updated_at: 'text',
  },
  instance_secrets: { name: 'text', value_encrypted: 'text', digest: 'text', updated_at: 'text' },
  ci_project_counts: { project_id: 'integer', pipelines: 'integer', jobs: 'integer' },
} as const satisfies Columns;

// The type check bites: each of these is an error (tsc fails on an unused @ts-expect-error).
const { admin: _admin, ...usersWithoutAdmin } = COLUMNS.users;
// @ts-expect-error a column of schema.ts missing here
void ({ ...COLUMNS, users: usersWithoutAdmin } satisfies Columns);
// @ts-expect-error a column schema.ts does not have
void ({ ...COLUMNS, users: { ...COLUMNS.users, nickname: 'text' } } satisfies Columns);
// @ts-expect-error a boolean column declared as an integer
void ({ ...COLUMNS, users: { ...COLUMNS.users, admin: 'integer' } } satisfies Columns);
// @ts-expect-error a nullable column declared as not null
void ({ ...COLUMNS, users: { ...COLUMNS.users, note: 'text' } } satisfies Columns);

/** Tables this test does not restate: the migrations' bookkeeping, and the declared settings tables. */
const UNTYPED_TABLES = new Set<string>(['schema_migrations', ...DECLARED_TABLES]);

/** A declared type's kind, by SQLite's affinity rules (which PostgreSQL's type names also fit). */
function kindOf(declared: string): Kind | `unknown type ${string}` {
  const type = declared.toLowerCase();
  if (/int/.test(type)) return 'integer';
  if (/char|text|clob/.test(type)) return 'text';
  if (/bool/.test(type)) return 'boolean';
  if (/real|floa|doub|numeric|decimal/.test(type)) return 'real';
  if (/blob|bytea/.test(type)) return 'bytes';
  return `unknown type ${declared}`;
}

interface LiveColumn {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

async function sqliteColumns(db: Kysely<DB>): Promise<LiveColumn[]> {
  // Ordinary tables only: the full-text search index (a virtual table and its shadow tables) is
  // SQLite's way of searching, not part of the schema.
  const tables = await sql<{ name: string }>`select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite_%'`.execute(db);
  const columns: LiveColumn[] = [];
  for (const { name } of tables.rows) {
    const info = await sql<{ name: string; type: string; notnull: number; pk: number }>`select name, type, "notnull", pk from pragma_table_info(${name})`.execute(db);
    // A primary key counts as not null: PostgreSQL makes it so, and SQLite does for an integer one
    // (another can hold null there, a legacy quirk that nothing here relies on).
    for (const c of info.rows) columns.push({ table: name, column: c.name, type: c.type, nullable: c.notnull === 0 && c.pk === 0 });
  }
  return columns;
}

async function postgresColumns(db: Kysely<DB>): Promise<LiveColumn[]> {
  const rows = await sql<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>`
    select c.table_name, c.column_name, c.data_type, c.is_nullable
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(db);
  return rows.rows.map((r) => ({ table: r.table_name, column: r.column_name, type: r.data_type, nullable: r.is_nullable === 'YES' }));
}

/** table → column → kind, with `?` for a nullable column, as COLUMNS writes them. */
function byTable(columns: readonly LiveColumn[]): Record<string, Record<string, string>> {
  const tables: Record<string, Record<string, string>> = {};
  for (const c of columns) {
    if (UNTYPED_TABLES.has(c.table)) continue;
    tables[c.table] ??= {};
    tables[c.table][c.column] = `${kindOf(c.type)}${c.nullable ? '?' : ''}`;
  }
  return tables;
}

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

test('the migrated database has the tables and columns of schema.ts, with their nullability and kinds', async () => {
  const db = t.deps.db;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const live = byTable(postgres ? await postgresColumns(db) : await sqliteColumns(db));
  assert.deepEqual(live, COLUMNS);
});

test('kinds: every declared type the migrations use is known', () => {
  assert.deepEqual(
    ['INTEGER', 'bigint', 'varchar(255)', 'TEXT', 'character varying', 'text', 'boolean', 'double precision', 'real', 'blob', 'bytea', 'json'].map(kindOf),
    ['integer', 'integer', 'text', 'text', 'text', 'text', 'boolean', 'real', 'real', 'bytes', 'bytes', 'unknown type json'],
  );
});
