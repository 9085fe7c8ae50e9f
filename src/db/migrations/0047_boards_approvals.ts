// Issue boards and their label lists (of a project or of a group), the approval settings of a
// project, and the approvals of merge requests. A board goes with its project or group, a list
// with its board or its label, an approval with its merge request or its user.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('boards'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('hide_backlog_list', 'boolean', falseByDefault)
    .addColumn('hide_closed_list', 'boolean', falseByDefault)
    .addColumn('milestone_id', 'bigint', (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('assignee_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('weight', 'integer')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('boards_project').on('boards').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('boards_group').on('boards').columns(['group_id', 'id']).execute();

  await withId(db, db.schema.createTable('board_lists'))
    .addColumn('board_id', 'bigint', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('label_id', 'bigint', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    .addColumn('position', 'integer', notNull)
    .addColumn('max_issue_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_weight', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('limit_metric', 'varchar(20)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('board_lists_board_label').on('board_lists').columns(['board_id', 'label_id']).unique().execute();
  await db.schema.createIndex('board_lists_label').on('board_lists').column('label_id').execute();

  await db.schema
    .createTable('project_approval_settings')
    .addColumn('project_id', 'bigint', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('approvals_before_merge', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reset_approvals_on_push', 'boolean', notNull)
    .addColumn('disable_overriding_approvers_per_merge_request', 'boolean', falseByDefault)
    .addColumn('merge_requests_author_approval', 'boolean', falseByDefault)
    .addColumn('merge_requests_disable_committers_approval', 'boolean', falseByDefault)
    .addColumn('require_password_to_approve', 'boolean', falseByDefault)
    .execute();

  await withId(db, db.schema.createTable('merge_request_approvals'))
    .addColumn('merge_request_id', 'bigint', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('merge_request_approvals_mr_user').on('merge_request_approvals').columns(['merge_request_id', 'user_id']).unique().execute();
  await db.schema.createIndex('merge_request_approvals_user').on('merge_request_approvals').column('user_id').execute();
}
