// A schema image makes the database the migrations make: same schema table, same rows (its own
// timestamps), same sequences; and migrateToLatest uses it only for a new SQLite database.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { type SchemaImage, readSchemaImage, tableRows } from './schema-image.ts';

/** Runs `check` with a migrated database, its image, and an empty database; closes both after. */
async function withDatabases(check: (source: { db: Kysely<any>; image: SchemaImage }, empty: Kysely<any>) => Promise<void>): Promise<void> {
  const source = openDatabase({ url: null, sqliteFile: ':memory:' });
  const empty = openDatabase({ url: null, sqliteFile: ':memory:' });
  try {
    const from = new Date().toISOString();
    await migrateToLatest(source.db, undefined, null);
    const image = await readSchemaImage(source.db, [from, new Date().toISOString()]);
    await check({ db: source.db, image }, empty.db);
  } finally {
    await source.close();
    await empty.close();
  }
}

/** The schema table and every ordinary table's rows, timestamps left out. (A full-text index's shadow
 * tables hold its encoding, which an empty index may write in more than one way.) */
async function everything(db: Kysely<any>) {
  const master = (await sql`select type, name, tbl_name, sql from sqlite_master order by type, name`.execute(db)).rows;
  const tables = (await sql<{ name: string; wr: number }>`select name, wr from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite%' order by name`.execute(db)).rows;
  const rows: Record<string, unknown[]> = {};
  for (const table of tables) {
    const found = await tableRows(db, table);
    rows[table.name] = found.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) ? 'timestamp' : v])));
  }
  return { master, rows };
}

test('restoring the image makes the database the migrations make', async () => {
  await withDatabases(async (source, copy) => {
    assert.ok(source.image.statements.length > 100);
    assert.ok(source.image.rows.schema_migrations.length > 40);
    const applied = await migrateToLatest(copy, undefined, source.image);
    assert.deepEqual(applied.sort(), source.image.rows.schema_migrations.map((row) => row.name).sort());
    assert.deepEqual(await everything(copy), await everything(source.db));
    assert.deepEqual((await sql`pragma integrity_check`.execute(copy)).rows, [{ integrity_check: 'ok' }]);
    // The full-text indexes are sound.
    const fts = (await sql<{ name: string }>`select name from pragma_table_list where type = 'virtual'`.execute(copy)).rows;
    assert.ok(fts.length > 0);
    for (const { name } of fts) await sql`insert into ${sql.table(name)} (${sql.ref(name)}) values ('integrity-check')`.execute(copy);
  });
});

test('timestamps written while the image was made become the time of the restore', async () => {
  await withDatabases(async (source, copy) => {
    // An image made an hour ago.
    const shift = (value: unknown) => (typeof value === 'string' && /^\d{4}-\d\d-\d\dT.*Z$/.test(value) ? new Date(Date.parse(value) - 3_600_000).toISOString() : value);
    const old: SchemaImage = {
      ...source.image,
      rows: Object.fromEntries(Object.entries(source.image.rows).map(([t, rows]) => [t, rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, shift(v)])))])),
      madeBetween: [shift(source.image.madeBetween[0]) as string, shift(source.image.madeBetween[1]) as string],
    };
    const before = new Date().toISOString();
    await migrateToLatest(copy, undefined, old);
    const settings = (await sql<{ created_at: string }>`select created_at from application_settings`.execute(copy)).rows;
    assert.equal(settings.length, 1);
    assert.ok(settings[0].created_at >= before, `${settings[0].created_at} is the restore's time`);
  });
});

test('a database with a schema already is migrated, not given the image', async () => {
  await withDatabases(async (source, other) => {
    await sql`create table unrelated (id integer primary key)`.execute(other);
    // An image that would fail if it were replayed over this schema.
    const applied = await migrateToLatest(other, undefined, { ...source.image, statements: ['create table unrelated (id integer)'] });
    assert.equal(applied.length, source.image.rows.schema_migrations.length);
    assert.ok((await sql`select name from sqlite_master where name = 'users'`.execute(other)).rows.length === 1);
    // Already migrated: nothing to apply, image or not.
    assert.deepEqual(await migrateToLatest(other, undefined, source.image), []);
  });
});
