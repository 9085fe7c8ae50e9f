// Runs the migrations, listed statically so that nothing depends on reading a folder at run time.
// Each pending migration runs in one transaction with its bookkeeping row; on PostgreSQL an
// advisory lock makes nodes that start together migrate one after the other.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import * as m0001 from './migrations/0001_users_and_tokens.ts';
import * as m0002 from './migrations/0002_namespaces_projects_members_events.ts';
import * as m0003 from './migrations/0003_list_counts_and_search.ts';
import * as m0004 from './migrations/0004_repositories.ts';
import * as m0005 from './migrations/0005_protected_refs.ts';
import * as m0006 from './migrations/0006_authorized_projects_by_level.ts';
import * as m0007 from './migrations/0007_background_jobs_and_instance.ts';
import * as m0008 from './migrations/0008_typed_settings.ts';
import * as m0009 from './migrations/0009_project_settings_revision.ts';
import * as m0010 from './migrations/0010_ci.ts';
import * as m0012 from './migrations/0012_pipeline_schedules.ts';
import * as m0013 from './migrations/0013_commit_statuses.ts';
import * as m0014 from './migrations/0014_ci_job_rest.ts';
import * as m0015 from './migrations/0015_ci_indexes.ts';
import * as m0016 from './migrations/0016_ci_job_scope_index.ts';
import * as m0017 from './migrations/0017_issues_labels_notes.ts';
import * as m0019 from './migrations/0019_releases.ts';
import * as m0020 from './migrations/0020_merge_requests.ts';
import * as m0021 from './migrations/0021_issue_list_indexes.ts';
import * as m0022 from './migrations/0022_merge_request_rebase.ts';
import * as m0023 from './migrations/0023_merge_requests_closing_issues.ts';
import * as m0024 from './migrations/0024_merge_request_pipelines.ts';
import * as m0025 from './migrations/0025_events_by_target.ts';
import * as m0026 from './migrations/0026_member_invitations.ts';
import * as m0027 from './migrations/0027_todos.ts';
import * as m0028 from './migrations/0028_clusters.ts';
import * as m0029 from './migrations/0029_keys.ts';
import * as m0030 from './migrations/0030_protected_branch_deploy_keys.ts';
import * as m0031 from './migrations/0031_pages.ts';
import * as m0032 from './migrations/0032_error_tracking.ts';
import * as m0033 from './migrations/0033_alert_management.ts';
import * as m0034 from './migrations/0034_session_admin_mode_and_terms.ts';
import * as m0035 from './migrations/0035_plan_limits_and_packages.ts';
import * as m0036 from './migrations/0036_repository_storage_moves.ts';
import * as m0037 from './migrations/0037_import_export.ts';
import * as m0038 from './migrations/0038_security_reports.ts';
import * as m0039 from './migrations/0039_web_hooks.ts';
import * as m0040 from './migrations/0040_deploy_tokens.ts';
import * as m0041 from './migrations/0041_broadcast_messages.ts';
import * as m0042 from './migrations/0042_snippets.ts';
import * as m0043 from './migrations/0043_group_wiki_repositories.ts';
import * as m0044 from './migrations/0044_user_profile.ts';
import * as m0045 from './migrations/0045_badges_notifications_uploads.ts';
import * as m0046 from './migrations/0046_discussions_and_resource_events.ts';
import * as m0047 from './migrations/0047_boards_approvals.ts';
import * as m0048 from './migrations/0048_security_scan_warnings.ts';
import * as m0049 from './migrations/0049_alert_assignees.ts';
import * as m0050 from './migrations/0050_oauth_applications.ts';
import * as m0053 from './migrations/0053_oauth_application_owners.ts';
import * as m0055 from './migrations/0055_push_leases.ts';
import type { MigrationContext } from './migrations/helpers.ts';

export type { MigrationContext };

interface Migration {
  up(db: Kysely<any>, context: MigrationContext): Promise<void>;
}

const migrations: [string, Migration][] = [
  ['0001_users_and_tokens', m0001],
  ['0002_namespaces_projects_members_events', m0002],
  ['0003_list_counts_and_search', m0003],
  ['0004_repositories', m0004],
  ['0005_protected_refs', m0005],
  ['0006_authorized_projects_by_level', m0006],
  ['0007_background_jobs_and_instance', m0007],
  ['0008_typed_settings', m0008],
  ['0009_project_settings_revision', m0009],
  ['0010_ci', m0010],
  ['0012_pipeline_schedules', m0012],
  ['0013_commit_statuses', m0013],
  ['0014_ci_job_rest', m0014],
  ['0015_ci_indexes', m0015],
  ['0016_ci_job_scope_index', m0016],
  ['0017_issues_labels_notes', m0017],
  ['0019_releases', m0019],
  ['0020_merge_requests', m0020],
  ['0021_issue_list_indexes', m0021],
  ['0022_merge_request_rebase', m0022],
  ['0023_merge_requests_closing_issues', m0023],
  ['0024_merge_request_pipelines', m0024],
  ['0025_events_by_target', m0025],
  ['0026_member_invitations', m0026],
  ['0027_todos', m0027],
  ['0028_clusters', m0028],
  ['0029_keys', m0029],
  ['0030_protected_branch_deploy_keys', m0030],
  ['0031_pages', m0031],
  ['0032_error_tracking', m0032],
  ['0033_alert_management', m0033],
  ['0034_session_admin_mode_and_terms', m0034],
  ['0035_plan_limits_and_packages', m0035],
  ['0036_repository_storage_moves', m0036],
  ['0037_import_export', m0037],
  ['0038_security_reports', m0038],
  ['0039_web_hooks', m0039],
  ['0040_deploy_tokens', m0040],
  ['0041_broadcast_messages', m0041],
  ['0042_snippets', m0042],
  ['0043_group_wiki_repositories', m0043],
  ['0044_user_profile', m0044],
  ['0045_badges_notifications_uploads', m0045],
  ['0046_discussions_and_resource_events', m0046],
  ['0047_boards_approvals', m0047],
  ['0048_security_scan_warnings', m0048],
  ['0049_alert_assignees', m0049],
  ['0050_oauth_applications', m0050],
  ['0053_oauth_application_owners', m0053],
  ['0055_push_leases', m0055],
];

/** An arbitrary constant naming Quarry's migration lock among PostgreSQL's advisory locks. */
const MIGRATION_LOCK = 7_270_001;

/** For callers that know no data directory: a migration that needs its key fails with this. */
const WITHOUT_KEY: MigrationContext = {
  seal() {
    throw new Error('this migration encrypts secrets with the data directory\'s key: run it through `quarry migrate` or the server');
  },
};

/**
 * Applies the pending migrations; which, in order. (A new SQLite database that began as the
 * bundled server's schema image has those of the image already: database.ts.)
 */
export async function migrateToLatest(db: Kysely<any>, context: MigrationContext = WITHOUT_KEY): Promise<string[]> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.transaction().execute(async (trx) => {
    if (postgres) await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`create table if not exists schema_migrations (name varchar(255) primary key, applied_at varchar(32) not null)`.execute(trx);
    const done = new Set((await trx.selectFrom('schema_migrations').select('name').execute()).map((r) => r.name as string));
    const applied: string[] = [];
    for (const [name, migration] of migrations) {
      if (done.has(name)) continue;
      await migration.up(trx, context);
      await trx.insertInto('schema_migrations').values({ name, applied_at: new Date().toISOString() }).execute();
      applied.push(name);
    }
    return applied;
  });
}
