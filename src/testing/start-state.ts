// The state an ephemeral instance started in (first start, plus the start seed if any), kept in
// memory, and a reset back to it: POST /-/test/reset. Every table of data (src/db/tables.ts, the
// list `quarry reset` empties too) gets its rows back, ids included, with SQLite's id sequences;
// the repositories the start seed made are copied back; and the caches of this process that would
// otherwise answer from what is gone are emptied. SQLite only: ephemeral mode keeps its database
// in memory.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Deps } from '../core/deps.ts';
import { DATA_TABLES, type DataTable } from '../db/tables.ts';
import { forgetApplicationSettings } from '../domain/settings/application-settings.ts';
import { forgetProjectSettings } from '../domain/settings/project-settings.ts';
import { objectCache } from '../git/object-cache.ts';
import { closeReaders } from '../git/reader-pool.ts';
import { clearRefCache } from '../git/ref-cache.ts';
import { removeAllRepositories } from '../git/repository.ts';

type Row = Record<string, unknown>;

export interface StartState {
  readonly rows: ReadonlyMap<DataTable, readonly Row[]>;
  readonly sequences: readonly { name: string; seq: number }[];
  /** Storage directory → the copy of its repositories (@hashed) at start. */
  readonly repositories: ReadonlyMap<string, string>;
}

/** Rows per INSERT: well under SQLite's limit of bound parameters for the widest table. */
const BATCH = 20;

/** Takes the instance's state now: rows in memory, repositories copied under the data directory. */
export async function captureStartState(deps: Deps): Promise<StartState> {
  if (deps.database.dialect !== 'sqlite') throw new Error('the start state is kept for SQLite (ephemeral mode) only');
  const rows = new Map<DataTable, Row[]>();
  for (const table of DATA_TABLES) rows.set(table, (await sql<Row>`select * from ${sql.table(table)} order by rowid`.execute(deps.db)).rows);
  const sequences = (await sql<{ name: string; seq: number }>`select name, seq from sqlite_sequence`.execute(deps.db)).rows;
  const repositories = new Map<string, string>();
  const storages = [...new Set(Object.values(deps.config.repositoryStorages))];
  for (const [i, dir] of storages.entries()) {
    const hashed = path.join(dir, '@hashed');
    if (!fs.existsSync(hashed)) continue;
    const copy = path.join(deps.config.dataDir, 'start-state', String(i), '@hashed');
    await fs.promises.cp(hashed, copy, { recursive: true });
    repositories.set(dir, copy);
  }
  return { rows, sequences, repositories };
}

/** Puts the instance back as it was when the state was taken. */
export async function restoreStartState(deps: Deps, state: StartState): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    // Parents and children are put back in one order whatever the references between rows.
    await sql`pragma defer_foreign_keys = on`.execute(trx);
    const generation = await trx.selectFrom('application_settings').select('generation').where('id', '=', 1).executeTakeFirst();
    for (const table of DATA_TABLES) await trx.deleteFrom(table).execute();
    await sql`delete from sqlite_sequence`.execute(trx);
    for (const table of [...DATA_TABLES].reverse()) {
      // Triggers of the tables put back before (counters) may have written rows here: the state's rows replace them.
      await trx.deleteFrom(table).execute();
      const rows = state.rows.get(table) ?? [];
      for (let i = 0; i < rows.length; i += BATCH) await trx.insertInto(table).values(rows.slice(i, i + BATCH) as never).execute();
    }
    // The inserts moved the sequences on their own: they are replaced by the state's.
    await sql`delete from sqlite_sequence`.execute(trx);
    for (const { name, seq } of state.sequences) await sql`insert into sqlite_sequence (name, seq) values (${name}, ${seq})`.execute(trx);
    // The generation only moves forward, so that no copy of the settings is ever taken for current.
    const restored = state.rows.get('application_settings')?.[0];
    if (restored) {
      const next = Math.max(Number(generation?.generation ?? 0), Number(restored.generation)) + 1;
      await trx.updateTable('application_settings').set({ generation: next }).where('id', '=', 1).execute();
    }
  });
  forgetApplicationSettings(deps.db);
  forgetProjectSettings();
  clearRefCache();
  objectCache.clear();
  // Readers of repositories that are gone, or about to be replaced by their copies.
  await closeReaders();
  await removeAllRepositories(deps.config.repositoryStorages);
  for (const [dir, copy] of state.repositories) await fs.promises.cp(copy, path.join(dir, '@hashed'), { recursive: true });
}
