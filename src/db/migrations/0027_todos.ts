// To-do items: what a user is asked to look at (assigned, mentioned, a failed pipeline …) on an
// issue or a merge request, pending until done. Targets are polymorphic (no foreign key): their
// services delete a target's to-dos with it; a project's, a user's and a note's go with them.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('todos'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('target_type', 'varchar(64)', notNull)
    .addColumn('target_id', 'bigint', notNull)
    .addColumn('author_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('action', 'varchar(32)', notNull)
    .addColumn('note_id', 'bigint', (c) => c.references('notes.id').onDelete('cascade'))
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('pending'))
    .addColumn('resolved_by_action', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  // A user's list, newest first, by state; and counted per project (whose readability is asked once).
  await db.schema.createIndex('todos_user_state_id').on('todos').columns(['user_id', 'state', 'id']).execute();
  await db.schema.createIndex('todos_user_state_project').on('todos').columns(['user_id', 'state', 'project_id']).execute();
  // A target's to-dos: resolving them for a user, deleting them with it.
  await db.schema.createIndex('todos_target_user').on('todos').columns(['target_type', 'target_id', 'user_id']).execute();
  await db.schema.createIndex('todos_project').on('todos').column('project_id').execute();
  await db.schema.createIndex('todos_author').on('todos').column('author_id').execute();
  await db.schema.createIndex('todos_note').on('todos').column('note_id').execute();
}
