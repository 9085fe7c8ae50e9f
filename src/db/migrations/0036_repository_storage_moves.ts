// Repository storage moves of projects, snippets and groups: one row per move, its state as the
// platform stores it (1 initial, 2 scheduled, 3 started, 4 finished, 5 failed, 6 replicated,
// 7 cleanup failed), the storages it goes between, and why it failed.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  const tables = [
    ['project_repository_storage_moves', 'project_id', 'projects.id'],
    ['snippet_repository_storage_moves', 'snippet_id', null],
    ['group_repository_storage_moves', 'group_id', 'namespaces.id'],
  ] as const;
  for (const [table, owner, references] of tables) {
    await withId(db, db.schema.createTable(table))
      .addColumn(owner, 'bigint', (c) => (references === null ? c.notNull() : c.notNull().references(references).onDelete('cascade')))
      .addColumn('state', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('source_storage_name', 'varchar(255)', notNull)
      .addColumn('destination_storage_name', 'varchar(255)', notNull)
      .addColumn('error_message', 'text')
      .addColumn('created_at', 'varchar(32)', notNull)
      .addColumn('updated_at', 'varchar(32)', notNull)
      .execute();
    await db.schema.createIndex(`${table}_${owner}`).on(table).columns([owner, 'id']).execute();
  }
}
