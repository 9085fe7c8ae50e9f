// Merge requests between two branches of one project: their state, who merged or closed them,
// the commits they stood on (diff refs), whether they can be merged (computed by a background
// job), and their assignees and reviewers.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const user = (c: any) => c.references('users.id').onDelete('set null');
  await withId(db, db.schema.createTable('merge_requests'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'bigint', notNull)
    .addColumn('author_id', 'bigint', user)
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('description', 'text')
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('opened'))
    .addColumn('source_branch', 'varchar(255)', notNull)
    .addColumn('target_branch', 'varchar(255)', notNull)
    .addColumn('milestone_id', 'bigint', (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('draft', 'boolean', falseByDefault)
    .addColumn('merge_status', 'varchar(32)', (c) => c.notNull().defaultTo('unchecked'))
    .addColumn('merge_error', 'text')
    .addColumn('merged_by_id', 'bigint', user)
    .addColumn('merged_at', 'varchar(32)')
    .addColumn('closed_by_id', 'bigint', user)
    .addColumn('closed_at', 'varchar(32)')
    .addColumn('squash', 'boolean', falseByDefault)
    .addColumn('force_remove_source_branch', 'boolean')
    .addColumn('should_remove_source_branch', 'boolean')
    .addColumn('sha', 'varchar(64)')
    .addColumn('merge_commit_sha', 'varchar(64)')
    .addColumn('squash_commit_sha', 'varchar(64)')
    .addColumn('base_sha', 'varchar(64)')
    .addColumn('start_sha', 'varchar(64)')
    .addColumn('head_sha', 'varchar(64)')
    .addColumn('discussion_locked', 'boolean')
    .addColumn('updated_by_id', 'bigint', user)
    .addColumn('last_edited_at', 'varchar(32)')
    .addColumn('last_edited_by_id', 'bigint', user)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('merge_requests_project_iid').on('merge_requests').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('merge_requests_project_state_id').on('merge_requests').columns(['project_id', 'state', 'id']).execute();
  await db.schema.createIndex('merge_requests_project_created').on('merge_requests').columns(['project_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('merge_requests_project_updated').on('merge_requests').columns(['project_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('merge_requests_source').on('merge_requests').columns(['project_id', 'source_branch', 'state']).execute();
  await db.schema.createIndex('merge_requests_target').on('merge_requests').columns(['project_id', 'target_branch', 'state']).execute();
  await db.schema.createIndex('merge_requests_author').on('merge_requests').columns(['author_id', 'id']).execute();
  await db.schema.createIndex('merge_requests_milestone').on('merge_requests').columns(['milestone_id']).execute();

  for (const table of ['merge_request_assignees', 'merge_request_reviewers']) {
    await db.schema
      .createTable(table)
      .addColumn('merge_request_id', 'bigint', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint(`${table}_pkey`, ['merge_request_id', 'user_id'])
      .execute();
    await db.schema.createIndex(`${table}_user`).on(table).columns(['user_id', 'merge_request_id']).execute();
  }
}
