// Runs the migrations, listed statically so that nothing depends on reading a folder at run time.
import { type Kysely, type Migration, Migrator, PostgresAdapter, sql } from 'kysely';
import * as m0001 from './migrations/0001_users_and_tokens.ts';

const migrations: Record<string, Migration> = {
  '0001_users_and_tokens': m0001,
};

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // Without an explicit schema the migrator would take another schema's bookkeeping tables for ours.
  const schema = db.getExecutor().adapter instanceof PostgresAdapter ? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0].s : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
