// Snippets: a personal one (no project) or a project's, each with a git repository of its own on
// a named storage (files live there; the row keeps the first file's name for the legacy fields).
// What a creation's client sent (user agent, address) is kept for the administrators' detail.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('snippets'))
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('description', 'text')
    .addColumn('author_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('visibility_level', 'integer', notNull)
    .addColumn('file_name', 'varchar(255)')
    .addColumn('repository_storage', 'varchar(255)', notNull)
    .addColumn('repository_read_only', 'boolean', falseByDefault)
    .addColumn('user_agent', 'text')
    .addColumn('ip_address', 'varchar(64)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('snippets_author').on('snippets').columns(['author_id', 'id']).execute();
  await db.schema.createIndex('snippets_project').on('snippets').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('snippets_visibility').on('snippets').columns(['visibility_level', 'id']).execute();
  await db.schema.createIndex('snippets_storage').on('snippets').columns(['repository_storage', 'id']).execute();
}
