// Group wikis: where a group's wiki repository lives (the platform's group_wiki_repositories). A row
// is written with the repository, on the wiki's first write; a group without one has no wiki yet.
import type { Kysely } from 'kysely';
import { notNull } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('group_wiki_repositories')
    .addColumn('group_id', 'bigint', (c) => c.primaryKey().references('namespaces.id').onDelete('cascade'))
    .addColumn('repository_storage', 'varchar(255)', notNull)
    /** Set while a storage move copies the repository: writes are refused meanwhile. */
    .addColumn('read_only', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
}
