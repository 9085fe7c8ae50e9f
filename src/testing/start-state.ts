// The state an ephemeral instance started in (first start, plus the start seed if any), kept in
// memory, and a reset back to it: POST /-/test/reset. Every table of data (src/db/tables.ts, the
// list `quarry reset` empties too) gets its rows back, ids included, with SQLite's id sequences;
// the repositories the start seed made come back; and the caches of this process that would
// otherwise answer from what is gone are emptied. SQLite only: ephemeral mode keeps its database
// in memory.
//
// Files cost more than rows here (removing a few small repositories took 10 to 200 ms on a busy
// disk), so a reset touches each storage with two renames: the repositories are moved aside into
// the storage's scratch area (removed in the background), and a spare copy of the start's
// repositories, made in advance, is moved into place. Copies are hard links: git never changes a
// file in place (it writes a lock file and renames it over the old one; objects are immutable),
// so the files a test's pushes replace are never those of the start state.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import type { Deps } from '../core/deps.ts';
import { DATA_TABLES, type DataTable } from '../db/tables.ts';
import { forgetApplicationSettings } from '../domain/settings/application-settings.ts';
import { forgetProjectSettings } from '../domain/settings/project-settings.ts';
import { randomBytes } from 'node:crypto';
import { objectCache } from '../git/object-cache.ts';
import { closeReaders } from '../git/reader-pool.ts';
import { clearRefCache } from '../git/ref-cache.ts';
import { stagingRepositoryPath } from '../git/repository.ts';
import { artifactsStorage } from '../storage/file-storage.ts';

type Row = Record<string, unknown>;

export interface StartState {
  readonly rows: ReadonlyMap<DataTable, readonly Row[]>;
  readonly sequences: readonly { name: string; seq: number }[];
  /** Storage directory → its repositories (@hashed) at start, kept under the data directory. */
  readonly repositories: ReadonlyMap<string, string>;
  /** A copy of those made in advance, which the next reset moves into place. */
  spare: Map<string, string> | null;
  readonly dataDir: string;
}

/** Rows per INSERT: well under SQLite's limit of bound parameters for the widest table. */
const BATCH = 20;

/** Links every file of `from` into a new tree at `to` (copies where a link cannot be made). */
function linkTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else {
      try {
        fs.linkSync(source, target);
      } catch {
        fs.copyFileSync(source, target);
      }
    }
  }
}

/** A fresh copy of the start's repositories, beside them under the data directory. */
function makeSpare(state: StartState): Map<string, string> {
  const spare = new Map<string, string>();
  const root = path.join(state.dataDir, 'start-state', `spare-${randomBytes(6).toString('hex')}`);
  for (const [i, [dir, copy]] of [...state.repositories].entries()) {
    const target = path.join(root, String(i), '@hashed');
    linkTree(copy, target);
    spare.set(dir, target);
  }
  return spare;
}

/** Those of `tables` that hold rows, in one query: a start has rows in a few of its 130 tables. */
async function tablesWithRows(deps: Deps, tables: readonly DataTable[]): Promise<DataTable[]> {
  const holding = sql.join(
    tables.map((table) => sql`select ${table} as name where exists (select 1 from ${sql.table(table)})`),
    sql` union all `,
  );
  const found = new Set((await sql<{ name: DataTable }>`${holding}`.execute(deps.db)).rows.map((row) => row.name));
  return tables.filter((table) => found.has(table));
}

/** Takes the instance's state now: rows in memory, repositories copied under the data directory. */
export async function captureStartState(deps: Deps): Promise<StartState> {
  if (deps.database.dialect !== 'sqlite') throw new Error('the start state is kept for SQLite (ephemeral mode) only');
  const rows = new Map<DataTable, Row[]>();
  for (const table of await tablesWithRows(deps, DATA_TABLES)) rows.set(table, (await sql<Row>`select * from ${sql.table(table)} order by rowid`.execute(deps.db)).rows);
  const sequences = (await sql<{ name: string; seq: number }>`select name, seq from sqlite_sequence`.execute(deps.db)).rows;
  const repositories = new Map<string, string>();
  const storages = [...new Set(Object.values(deps.config.repositoryStorages))];
  for (const [i, dir] of storages.entries()) {
    const hashed = path.join(dir, '@hashed');
    if (!fs.existsSync(hashed)) continue;
    const copy = path.join(deps.config.dataDir, 'start-state', 'kept', String(i), '@hashed');
    linkTree(hashed, copy);
    repositories.set(dir, copy);
  }
  const state: StartState = { rows, sequences, repositories, spare: null, dataDir: deps.config.dataDir };
  if (repositories.size > 0) state.spare = makeSpare(state);
  return state;
}

/** Puts the instance back as it was when the state was taken. */
export async function restoreStartState(deps: Deps, state: StartState): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    // Parents and children are put back in one order whatever the references between rows.
    await sql`pragma defer_foreign_keys = on`.execute(trx);
    const generation = await trx.selectFrom('application_settings').select('generation').where('id', '=', 1).executeTakeFirst();
    for (const table of DATA_TABLES) await trx.deleteFrom(table).execute();
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
  // Readers of repositories that are going: they end once they have answered what they owe.
  void closeReaders().catch(() => {});
  // The start has no job artifacts; what the session stored is moved aside now, removed later.
  void artifactsStorage(deps.config).removeAll().catch(() => {});

  const aside: string[] = [];
  for (const dir of new Set(Object.values(deps.config.repositoryStorages))) {
    const hashed = path.join(dir, '@hashed');
    const away = stagingRepositoryPath(dir);
    fs.mkdirSync(path.dirname(away), { recursive: true });
    try {
      fs.renameSync(hashed, away);
      aside.push(away);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const spare = state.spare ?? makeSpare(state);
  state.spare = null;
  for (const [dir, copy] of spare) {
    try {
      fs.renameSync(copy, path.join(dir, '@hashed'));
    } catch (error) {
      // A storage on another file system than the data directory.
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      fs.cpSync(copy, path.join(dir, '@hashed'), { recursive: true });
    }
  }
  // After the answer: removing what went aside, and the spare for the next reset.
  const used = new Set([...spare.values()].map((copy) => path.dirname(path.dirname(copy))));
  setImmediate(() => {
    for (const away of [...aside, ...used]) void fs.promises.rm(away, { recursive: true, force: true }).catch(() => {});
    if (state.spare === null && state.repositories.size > 0) state.spare = makeSpare(state);
  });
}
