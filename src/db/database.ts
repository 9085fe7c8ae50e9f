// Opens the database the configuration names: embedded SQLite by default, PostgreSQL with DATABASE_URL.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type Pg from 'pg';
import { queryLogger, sqliteStatementTimer } from '../core/metrics.ts';
import { BUNDLED_SCHEMA_IMAGE } from './bundled-schema-image.ts';
import { type SchemaImage, imageBytes, stampImageCopy, writeImageFile } from './schema-image.ts';
import type { DB } from './schema.ts';
import { sqliteAdapter } from './sqlite-adapter.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
  /** The migrations this database got from the schema image as it was made by this open; [] otherwise. */
  readonly imageMigrations: readonly string[];
  /**
   * PostgreSQL: calls onNotify for each notification on the channel (delivered at the notifier's
   * commit, to every node), over a connection of its own; resolves to its stop. SQLite has no
   * notifications across processes: null.
   */
  listen(channel: string, onNotify: (payload: string) => void): Promise<(() => Promise<void>) | null>;
  close(): Promise<void>;
}

let pgModule: typeof Pg | null = null;

/** The pg driver, loaded the first time PostgreSQL is used (SQLite starts without it). */
function loadPg(): typeof Pg {
  if (pgModule) return pgModule;
  pgModule = createRequire(import.meta.url)('pg') as typeof Pg;
  // COUNT(*) and other int8 results arrive as strings by default; every count here fits a double.
  pgModule.types.setTypeParser(20, (value: string) => Number(value));
  return pgModule;
}

export interface OpenOptions {
  /** postgres://… or null for SQLite. */
  url: string | null;
  /** SQLite file; ':memory:' for a private in-memory database. */
  sqliteFile?: string;
  /** PostgreSQL schema to use as search_path (tests use one schema per file). */
  pgSchema?: string;
  poolSize?: number;
  /** What a new SQLite database starts as (schema-image.ts): the bundled server's image by default. */
  image?: SchemaImage | null;
}

export function openDatabase(options: OpenOptions): Database {
  if (options.url) return openPostgres(options.url, options.pgSchema, options.poolSize ?? 10);
  return openSqlite(options.sqliteFile ?? ':memory:', options.image === undefined ? BUNDLED_SCHEMA_IMAGE : options.image);
}

function openSqlite(file: string, image: SchemaImage | null): Database {
  const memory = file === ':memory:';
  if (!memory) fs.mkdirSync(path.dirname(file), { recursive: true });
  // A new database starts as a copy of the image, if there is one; migrations it lacks run after.
  const copied = image !== null && (memory || writeImageFile(file, image));
  const raw = new DatabaseSync(file);
  if (copied && memory) raw.deserialize(imageBytes(image));
  raw.exec('PRAGMA journal_mode = WAL');
  raw.exec('PRAGMA synchronous = NORMAL');
  raw.exec('PRAGMA foreign_keys = ON');
  raw.exec('PRAGMA busy_timeout = 5000');
  // 32 MiB of page cache instead of the default 2 MiB, which one list request outgrows: counting a
  // user's projects alone reads most pages of `projects` (measured on the benchmark's data:
  // GET /projects as a member of 50 groups spent 0.72 ms per request in SQL, 0.43 ms with it).
  // It is filled as pages are read, so the idle process is no bigger.
  raw.exec('PRAGMA cache_size = -32768');
  if (copied) stampImageCopy(raw, image);
  // Every statement is timed for the metrics (core/metrics.ts).
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqliteAdapter(raw, sqliteStatementTimer) }) });
  return { db, dialect: 'sqlite', imageMigrations: copied ? image.migrations : [], listen: async () => null, close: () => db.destroy() };
}

function openPostgres(url: string, schema: string | undefined, max: number): Database {
  const pg = loadPg();
  const pool = new pg.Pool({
    connectionString: url,
    max,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // The log option times every query for the metrics (core/metrics.ts).
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log: queryLogger('postgres') });
  const listen = async (channel: string, onNotify: (payload: string) => void) => {
    const client = new pg.Client({ connectionString: url });
    // A lost connection only delays wake-ups: workers poll as well.
    client.on('error', () => {});
    await client.connect();
    client.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    await client.query(`listen ${pg.Client.prototype.escapeIdentifier(channel)}`);
    return () => client.end();
  };
  return { db, dialect: 'postgres', imageMigrations: [], listen, close: () => db.destroy() };
}

/** True when the database answers a trivial query. */
export async function isReachable(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
