import type { Kysely } from 'kysely';
import { falseByDefault } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  // Set while a storage move copies the repository: pushes and API writes are refused meanwhile.
  await db.schema.alterTable('projects').addColumn('repository_read_only', 'boolean', falseByDefault).execute();
  // Whether the repository has no branch (the API's empty_repo), kept by whatever writes refs so
  // that lists never ask git. No project had a repository before this migration.
  await db.schema.alterTable('projects').addColumn('empty_repo', 'boolean', (c) => c.notNull().defaultTo(true)).execute();
}
