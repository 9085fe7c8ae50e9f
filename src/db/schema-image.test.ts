// A new SQLite database made from the schema image is the database the migrations make: same
// schema table, same rows (with its own timestamps), sound indexes; and a database that exists is
// never replaced by it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { type Database, openDatabase } from './database.ts';
import { makeSchemaImage } from './make-schema-image.ts';
import { migrateToLatest } from './migrate.ts';
import type { SchemaImage } from './schema-image.ts';

let image: SchemaImage;
let madeBy: Date;
let dir: string;
const opened: Database[] = [];
const open = (sqliteFile: string, withImage: SchemaImage | null) => {
  const database = openDatabase({ url: null, sqliteFile, image: withImage });
  opened.push(database);
  return database;
};

before(async () => {
  image = await makeSchemaImage();
  madeBy = new Date();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-schema-image-test-'));
});
after(async () => {
  for (const database of opened) await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The schema table and every ordinary table's rows, timestamps left out. (A full-text index's shadow
 * tables hold its encoding, which an empty index may write in more than one way.) */
async function everything(db: Kysely<any>) {
  const master = (await sql`select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(db)).rows;
  const tables = (await sql<{ name: string; wr: number }>`select name, wr from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite%' order by name`.execute(db)).rows;
  const rows: Record<string, unknown[]> = {};
  for (const table of tables) {
    const found = (await sql<Record<string, unknown>>`select * from ${sql.table(table.name)} ${table.wr ? sql`` : sql`order by rowid`}`.execute(db)).rows;
    rows[table.name] = found.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? 'timestamp' : v])));
  }
  return { master, rows };
}

test('a database made from the image is the database the migrations make', async () => {
  const migrated = open(':memory:', null).db;
  assert.ok((await migrateToLatest(migrated)).length > 40);
  const copied = open(':memory:', image);
  const copy = copied.db;
  assert.deepEqual(copied.imageMigrations, (await sql<{ name: string }>`select name from schema_migrations order by name`.execute(migrated)).rows.map((row) => row.name));
  assert.deepEqual(await migrateToLatest(copy), [], 'the image has every migration');
  assert.deepEqual(await everything(copy), await everything(migrated));
  assert.deepEqual((await sql`pragma integrity_check`.execute(copy)).rows, [{ integrity_check: 'ok' }]);
  assert.deepEqual((await sql`pragma foreign_keys`.execute(copy)).rows, [{ foreign_keys: 1 }]);
  // The full-text indexes are sound.
  const fts = (await sql<{ name: string }>`select name from pragma_table_list where type = 'virtual'`.execute(copy)).rows;
  assert.ok(fts.length > 0);
  for (const { name } of fts) await sql`insert into ${sql.table(name)} (${sql.ref(name)}) values ('integrity-check')`.execute(copy);
  // And it takes writes beyond the image's size.
  await sql`create table grown (value text)`.execute(copy);
  for (let i = 0; i < 50; i++) await sql`insert into grown (value) values (${'x'.repeat(100_000)})`.execute(copy);
  assert.deepEqual((await sql`select count(*) as n from grown`.execute(copy)).rows, [{ n: 50 }]);
});

test('timestamps written while the image was made become the time of the copy', async () => {
  assert.ok(image.stamped.some(([table, column]) => table === 'application_settings' && column === 'created_at'));
  const copy = open(':memory:', image).db;
  const settings = (await sql<{ created_at: string }>`select created_at from application_settings`.execute(copy)).rows;
  assert.equal(settings.length, 1);
  assert.ok(settings[0].created_at >= madeBy.toISOString(), `${settings[0].created_at} is the copy's time`);
});

test('a new database file begins as the image, in write-ahead log mode', async () => {
  const db = open(path.join(dir, 'new', 'quarry.sqlite'), image).db;
  assert.deepEqual(await migrateToLatest(db), []);
  assert.equal((await sql`select name from sqlite_master where name = 'users'`.execute(db)).rows.length, 1);
  assert.deepEqual((await sql`pragma journal_mode`.execute(db)).rows, [{ journal_mode: 'wal' }]);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'new')).filter((name) => name.endsWith('.image')), []);
});

test('a database file that exists is opened as it is and migrated, never replaced by the image', async () => {
  const file = path.join(dir, 'existing.sqlite');
  const first = open(file, null).db;
  await sql`create table unrelated (id integer primary key)`.execute(first);
  const reopened = open(file, image);
  assert.deepEqual(reopened.imageMigrations, []);
  const again = reopened.db;
  assert.equal((await sql`select name from sqlite_master where name = 'users'`.execute(again)).rows.length, 0);
  assert.ok((await migrateToLatest(again)).length > 40);
  assert.equal((await sql`select name from sqlite_master where name = 'unrelated'`.execute(again)).rows.length, 1);
});
