// Empties every table, keeping the schema, and removes every repository, so a test instance can
// start over cheaply.
import { sql } from 'kysely';
import type { Deps } from '../core/deps.ts';
import { removeAllRepositories } from '../git/repository.ts';

/** Tables in an order that respects foreign keys (children first). */
const TABLES = [
  'background_jobs',
  'events',
  'namespace_member_counts',
  // Truncation fires no row triggers: the counters are emptied with what they count.
  'project_visibility_counts',
  'project_custom_attributes',
  'users_star_projects',
  'project_authorizations',
  'members',
  'project_topics',
  'project_features',
  'project_ci_cd_settings',
  'project_settings',
  'projects',
  'namespace_settings',
  'namespaces',
  'web_sessions',
  'oauth_access_tokens',
  'personal_access_tokens',
  'user_custom_attributes',
  'identities',
  'users',
  // The instance's settings return to their defaults (the row is recreated when next read).
  'application_settings',
] as const;

export async function resetData(deps: Deps): Promise<void> {
  if (deps.database.dialect === 'postgres') {
    await sql`truncate table ${sql.join(TABLES.map((t) => sql.table(t)))} restart identity cascade`.execute(deps.db);
  } else {
    await deps.db.transaction().execute(async (trx) => {
      for (const table of TABLES) await trx.deleteFrom(table).execute();
      await sql`delete from sqlite_sequence`.execute(trx);
    });
  }
  await removeAllRepositories(deps.config.repositoryStorages);
}
