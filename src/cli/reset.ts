// Empties every table of data, keeping the schema, and removes every repository and stored file
// (job artifacts), so that an instance can start over (`quarry reset`; root is recreated
// afterwards by prepare).
import { sql } from 'kysely';
import type { Deps } from '../core/deps.ts';
import { DATA_TABLES } from '../db/tables.ts';
import { removeAllRepositories } from '../git/repository.ts';
import { artifactsStorage } from '../storage/file-storage.ts';

export async function resetData(deps: Deps): Promise<void> {
  if (deps.database.dialect === 'postgres') {
    await sql`truncate table ${sql.join(DATA_TABLES.map((t) => sql.table(t)))} restart identity cascade`.execute(deps.db);
  } else {
    await deps.db.transaction().execute(async (trx) => {
      for (const table of DATA_TABLES) await trx.deleteFrom(table).execute();
      await sql`delete from sqlite_sequence`.execute(trx);
    });
  }
  await removeAllRepositories(deps.config.repositoryStorages);
  await artifactsStorage(deps.config).removeAll();
}
