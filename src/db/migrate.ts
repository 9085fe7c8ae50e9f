// Runs the migrations, listed statically so that nothing depends on reading a folder at run time.
import { type Kysely, type Migration, Migrator } from 'kysely';
import * as m0001 from './migrations/0001_users_and_tokens.ts';

const migrations: Record<string, Migration> = {
  '0001_users_and_tokens': m0001,
};

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: 'schema_migrations',
    migrationLockTableName: 'schema_migrations_lock',
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
