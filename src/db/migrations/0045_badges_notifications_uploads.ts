// Badges of projects and groups, users' notification settings (global and per project or group),
// files uploaded to projects, and the running totals of background jobs that the job statistics
// report (a finished job leaves no row behind to count).
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

/** The events a custom notification level chooses from, as the platform names them (release 14.x, CE). */
const NOTIFICATION_EVENTS = [
  'new_release', 'new_note', 'new_issue', 'reopen_issue', 'close_issue', 'reassign_issue', 'issue_due', 'new_merge_request',
  'push_to_merge_request', 'reopen_merge_request', 'close_merge_request', 'reassign_merge_request', 'change_reviewer_merge_request',
  'merge_merge_request', 'failed_pipeline', 'fixed_pipeline', 'success_pipeline', 'moved_project', 'merge_when_pipeline_succeeds',
];

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('badges'))
    /** 'ProjectBadge' or 'GroupBadge'. */
    .addColumn('type', 'varchar(16)', notNull)
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)')
    .addColumn('link_url', 'text', notNull)
    .addColumn('image_url', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('badges_project').on('badges').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('badges_group').on('badges').columns(['group_id', 'id']).execute();

  let settings = withId(db, db.schema.createTable('notification_settings'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    /** 'global', 'project:<id>' or 'group:<id>': one setting per user and source. */
    .addColumn('source_key', 'varchar(64)', notNull)
    .addColumn('level', 'varchar(16)', notNull)
    .addColumn('notification_email', 'varchar(255)');
  for (const event of NOTIFICATION_EVENTS) settings = settings.addColumn(event, 'boolean');
  await settings.addColumn('created_at', 'varchar(32)', notNull).addColumn('updated_at', 'varchar(32)', notNull).execute();
  await db.schema.createIndex('notification_settings_source').on('notification_settings').columns(['user_id', 'source_key']).unique().execute();

  await withId(db, db.schema.createTable('uploads'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('uploaded_by_user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('secret', 'varchar(32)', notNull)
    .addColumn('filename', 'varchar(255)', notNull)
    .addColumn('size', 'bigint', notNull)
    /** Where the bytes are, relative to the uploads storage. */
    .addColumn('file_path', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('uploads_project_secret').on('uploads').columns(['project_id', 'secret', 'filename']).unique().execute();

  await db.schema
    .createTable('background_job_stats')
    .addColumn('kind', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('processed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
