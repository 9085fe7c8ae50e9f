// Webhooks: a project's, a group's (its projects' events and its own member events) and the
// instance's (system hooks), each with the events it is sent and its secret token (kept encrypted
// with the instance's key); and the log of every delivery with what the receiver answered, from
// which a delivery is sent again.
import { type Kysely, sql } from 'kysely';
import { emptyByDefault, falseByDefault, notNull, withId } from './helpers.ts';

const EVENT_FLAGS = [
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'note_events',
  'confidential_note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'releases_events',
  'member_events',
  'subgroup_events',
  'repository_update_events',
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  let hooks = withId(db, db.schema.createTable('web_hooks'))
    .addColumn('type', 'varchar(16)', notNull)
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('url', 'text', notNull)
    .addColumn('token_encrypted', 'text')
    .addColumn('push_events', 'boolean', (c) => c.notNull().defaultTo(sql`true`))
    .addColumn('push_events_branch_filter', 'text');
  for (const flag of EVENT_FLAGS) hooks = hooks.addColumn(flag, 'boolean', falseByDefault);
  await hooks
    .addColumn('enable_ssl_verification', 'boolean', (c) => c.notNull().defaultTo(sql`true`))
    .addColumn('recent_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_until', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('web_hooks_project').on('web_hooks').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('web_hooks_group').on('web_hooks').columns(['group_id', 'id']).execute();
  await db.schema.createIndex('web_hooks_type').on('web_hooks').columns(['type', 'id']).execute();

  await withId(db, db.schema.createTable('web_hook_logs'))
    .addColumn('web_hook_id', 'bigint', (c) => c.notNull().references('web_hooks.id').onDelete('cascade'))
    .addColumn('trigger', 'varchar(64)', notNull)
    .addColumn('url', 'text', notNull)
    .addColumn('request_headers', 'text', notNull)
    .addColumn('request_data', 'text', notNull)
    .addColumn('response_headers', 'text', notNull)
    .addColumn('response_body', 'text', emptyByDefault)
    .addColumn('response_status', 'varchar(32)', notNull)
    .addColumn('execution_duration', 'real', notNull)
    .addColumn('internal_error_message', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('web_hook_logs_hook').on('web_hook_logs').columns(['web_hook_id', 'id']).execute();
}
