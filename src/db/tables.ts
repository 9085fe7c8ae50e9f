// The tables that hold an instance's data, in one list, so that every way of starting over
// (`quarry reset`, `POST /-/test/reset` in ephemeral mode) empties the same ones. A test checks
// that every table of the schema is in exactly one of the two lists below.
import type { DB } from './schema.ts';

/**
 * Tables of data, children before parents (an order that respects foreign keys when rows are
 * deleted one table after another; restore in the reverse order).
 */
export const DATA_TABLES = [
  'background_jobs',
  'import_failures',
  'project_exports',
  'project_import_states',
  'group_exports',
  'group_import_states',
  'ci_project_counts',
  'ci_build_trace_chunks',
  'ci_job_artifacts',
  'security_dependencies',
  'security_findings',
  'security_scans',
  'ci_build_report_results',
  'ci_job_variables',
  'ci_pending_builds',
  'pages_deployments',
  'ci_builds',
  'ci_pipeline_variables',
  'ci_pipelines',
  'ci_pipeline_schedule_variables',
  'ci_pipeline_schedules',
  'ci_runner_projects',
  'ci_runner_namespaces',
  'ci_runners',
  'ci_variables',
  'ci_triggers',
  'instance_secrets',
  'clusters',
  'vulnerability_occurrences',
  'vulnerabilities',
  'vulnerability_identifiers',
  'vulnerability_scanners',
  'software_license_policies',
  'alert_management_alert_assignees',
  'alert_management_alerts',
  'alert_management_http_integrations',
  'error_tracking_error_events',
  'error_tracking_errors',
  'error_tracking_client_keys',
  'error_tracking_settings',
  'web_hook_logs',
  'web_hooks',
  'deploy_tokens',
  'broadcast_messages',
  'package_files',
  'packages',
  'project_repository_storage_moves',
  'snippet_repository_storage_moves',
  'group_repository_storage_moves',
  'pages_domains',
  'release_evidences',
  'milestone_releases',
  'release_links',
  'releases',
  'subscriptions',
  'todos',
  // After what it counts: deleting those rows one by one updates it through its triggers.
  'todo_counts',
  'notes',
  'label_links',
  'merge_requests_closing_issues',
  'merge_request_reviewers',
  'merge_request_assignees',
  'merge_requests',
  'issue_assignees',
  'issues',
  'milestones',
  'label_priorities',
  'labels',
  // After what it counts: deleting those rows one by one updates it through its triggers.
  'issue_label_counts',
  'internal_ids',
  'events',
  'namespace_member_counts',
  // Truncation fires no row triggers: the counters are emptied with what they count.
  'project_visibility_counts',
  'project_custom_attributes',
  'group_custom_attributes',
  'deploy_keys_projects',
  'keys',
  'users_star_projects',
  'project_authorizations',
  'members',
  'protected_branch_access_levels',
  'protected_branches',
  'protected_tag_create_access_levels',
  'protected_tags',
  'project_statistics',
  'project_topics',
  'project_features',
  'project_ci_cd_settings',
  'project_settings',
  'projects',
  'namespace_settings',
  'namespaces',
  'web_sessions',
  'oauth_access_tokens',
  'personal_access_tokens',
  'user_custom_attributes',
  'identities',
  'users',
  // The instance's settings and plan limits return to their defaults (the rows are recreated when next read).
  'application_settings',
  'plan_limits',
] as const satisfies readonly (keyof DB)[];

export type DataTable = (typeof DATA_TABLES)[number];

/**
 * Tables that outlive a reset: the schema's own bookkeeping, the instance's identity (its data
 * directory records it), when the periodic tasks run next, and a generation number that only
 * ever moves forward (caches of member counts compare against it).
 */
export const KEPT_TABLES = ['schema_migrations', 'instance_identity', 'scheduled_task_runs', 'membership_generation'] as const;
