// projects.settings_revision: a random token that every change of a project's settings replaces, so
// that servers may keep settings in memory keyed by it (an unknown token is a miss, whatever node
// made the change). Existing projects get one each; '' (a project inserted without its settings)
// is never cached.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('settings_revision', 'varchar(32)', (c) => c.notNull().defaultTo('')).execute();
  const token = isPostgres(db) ? sql`substr(md5(random()::text || id::text), 1, 16)` : sql`lower(hex(randomblob(8)))`;
  await sql`update projects set settings_revision = ${token}`.execute(db);
}
