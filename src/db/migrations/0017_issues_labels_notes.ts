// Issues and what they share with merge requests: labels (of a project or a group) linked to
// their targets, milestones (whose API comes later; issues point at them), notes (comments and
// system notes on issues, merge requests and commits), subscriptions, and per-project internal ids
// (`iid`) handed out by a counter row, so that an iid is never given twice, not even after the
// newest issue is deleted.
import type { Kysely } from 'kysely';
import { emptyByDefault, falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('internal_ids'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('namespace_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('usage', 'varchar(32)', notNull)
    .addColumn('last_value', 'bigint', notNull)
    .execute();
  await db.schema.createIndex('internal_ids_project_usage').on('internal_ids').columns(['usage', 'project_id']).unique().execute();
  await db.schema.createIndex('internal_ids_namespace_usage').on('internal_ids').columns(['usage', 'namespace_id']).unique().execute();

  await withId(db, db.schema.createTable('labels'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('color', 'varchar(32)', notNull)
    .addColumn('description', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('labels_project_title').on('labels').columns(['project_id', 'title']).unique().execute();
  await db.schema.createIndex('labels_group_title').on('labels').columns(['group_id', 'title']).unique().execute();
  await db.schema.createIndex('labels_title').on('labels').column('title').execute();

  await withId(db, db.schema.createTable('label_priorities'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('label_id', 'bigint', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('priority', 'integer', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('label_priorities_project_label').on('label_priorities').columns(['project_id', 'label_id']).unique().execute();
  await db.schema.createIndex('label_priorities_label').on('label_priorities').column('label_id').execute();

  await withId(db, db.schema.createTable('milestones'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('iid', 'bigint', notNull)
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('description', 'text')
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
    .addColumn('due_date', 'varchar(10)')
    .addColumn('start_date', 'varchar(10)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('milestones_project_iid').on('milestones').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('milestones_group_iid').on('milestones').columns(['group_id', 'iid']).unique().execute();
  await db.schema.createIndex('milestones_title').on('milestones').column('title').execute();

  await withId(db, db.schema.createTable('issues'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('iid', 'bigint', notNull)
    .addColumn('author_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('description', 'text')
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('opened'))
    .addColumn('issue_type', 'varchar(16)', (c) => c.notNull().defaultTo('issue'))
    .addColumn('confidential', 'boolean', falseByDefault)
    .addColumn('discussion_locked', 'boolean')
    .addColumn('due_date', 'varchar(10)')
    .addColumn('weight', 'integer')
    .addColumn('milestone_id', 'bigint', (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('time_estimate', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('moved_to_id', 'bigint', (c) => c.references('issues.id').onDelete('set null'))
    .addColumn('duplicated_to_id', 'bigint', (c) => c.references('issues.id').onDelete('set null'))
    .addColumn('closed_at', 'varchar(32)')
    .addColumn('closed_by_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_by_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('last_edited_at', 'varchar(32)')
    .addColumn('last_edited_by_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('issues_project_iid').on('issues').columns(['project_id', 'iid']).unique().execute();
  await db.schema.createIndex('issues_project_state_id').on('issues').columns(['project_id', 'state', 'id']).execute();
  await db.schema.createIndex('issues_project_updated').on('issues').columns(['project_id', 'updated_at', 'id']).execute();
  await db.schema.createIndex('issues_author').on('issues').columns(['author_id', 'id']).execute();
  await db.schema.createIndex('issues_milestone').on('issues').columns(['milestone_id']).execute();

  await db.schema
    .createTable('issue_assignees')
    .addColumn('issue_id', 'bigint', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('issue_assignees_pkey', ['issue_id', 'user_id'])
    .execute();
  await db.schema.createIndex('issue_assignees_user').on('issue_assignees').columns(['user_id', 'issue_id']).execute();

  // A label on an issue or a merge request.
  await withId(db, db.schema.createTable('label_links'))
    .addColumn('label_id', 'bigint', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('target_type', 'varchar(32)', notNull)
    .addColumn('target_id', 'bigint', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('label_links_target_label').on('label_links').columns(['target_type', 'target_id', 'label_id']).unique().execute();
  await db.schema.createIndex('label_links_label_target').on('label_links').columns(['label_id', 'target_type', 'target_id']).execute();

  // Comments and system notes. A commit's notes name it by commit_id; the others by noteable_id.
  await withId(db, db.schema.createTable('notes'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('noteable_type', 'varchar(32)', notNull)
    .addColumn('noteable_id', 'bigint')
    .addColumn('commit_id', 'varchar(64)')
    .addColumn('author_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', 'text', emptyByDefault)
    .addColumn('system', 'boolean', falseByDefault)
    .addColumn('confidential', 'boolean', falseByDefault)
    .addColumn('resolvable', 'boolean', falseByDefault)
    .addColumn('resolved_at', 'varchar(32)')
    .addColumn('resolved_by_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('type', 'varchar(32)')
    .addColumn('discussion_id', 'varchar(64)')
    .addColumn('path', 'text')
    .addColumn('line', 'integer')
    .addColumn('line_type', 'varchar(8)')
    .addColumn('updated_by_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('notes_noteable').on('notes').columns(['noteable_type', 'noteable_id', 'id']).execute();
  await db.schema.createIndex('notes_project_commit').on('notes').columns(['project_id', 'commit_id', 'id']).execute();

  await withId(db, db.schema.createTable('subscriptions'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('subscribable_type', 'varchar(32)', notNull)
    .addColumn('subscribable_id', 'bigint', notNull)
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('subscribed', 'boolean', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema
    .createIndex('subscriptions_subject_user')
    .on('subscriptions')
    .columns(['subscribable_type', 'subscribable_id', 'user_id', 'project_id'])
    .execute();
}
