// The database a new SQLite database is once every migration ran, as SQLite's own serialization
// of it. Migrations run in about 150 ms on SQLite (each ALTER makes SQLite rewrite its whole
// schema), replaying their CREATE statements in about 20, loading an image in about 5: the bundled
// server carries an image made when it was built (src/bundle/build.ts), and every new SQLite
// database starts as a copy of it (database.ts).
import fs from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

export interface SchemaImage {
  /** The database file (sqlite3_serialize), deflated, in base64: mostly empty pages, 1.8 MB → 50 kB. */
  database: string;
  /** The migrations it has, in the order they ran. */
  migrations: string[];
  /** The columns that hold timestamps written while the image was made: a copy gets its own time. */
  stamped: [table: string, column: string][];
  /** When the image was made (ISO 8601). */
  madeBetween: [string, string];
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The image of a database (migrated while `madeBetween`). */
export function readSchemaImage(raw: DatabaseSync, madeBetween: [string, string]): SchemaImage {
  const tables = raw.prepare("select name from pragma_table_list where schema = 'main' and type = 'table' and name not like 'sqlite%' order by name").all() as { name: string }[];
  const stamped: SchemaImage['stamped'] = [];
  for (const { name } of tables) {
    for (const { name: column } of raw.prepare(`select name from pragma_table_info(?)`).all(name) as { name: string }[]) {
      const found = raw.prepare(`select 1 from ${quoted(name)} where ${quoted(column)} between ? and ? limit 1`).get(...madeBetween);
      if (found) stamped.push([name, column]);
    }
  }
  const migrations = (raw.prepare('select name from schema_migrations order by rowid').all() as { name: string }[]).map((row) => row.name);
  return { database: deflateRawSync(raw.serialize()).toString('base64'), migrations, stamped, madeBetween };
}

/** The image's database file. */
export function imageBytes(image: SchemaImage): Buffer {
  return inflateRawSync(Buffer.from(image.database, 'base64'));
}

/**
 * Makes `file` a copy of the image unless it exists; false when it did. Written aside and linked
 * into place, so that a process that opens the file never sees half of it.
 */
export function writeImageFile(file: string, image: SchemaImage): boolean {
  if (fs.existsSync(file)) return false;
  const aside = `${file}.${process.pid}.image`;
  fs.writeFileSync(aside, imageBytes(image));
  try {
    fs.linkSync(aside, file);
    return true;
  } catch (error) {
    // Another process made the database first: it is that one's.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Gives the timestamps written while the image was made the time of the copy. */
export function stampImageCopy(raw: DatabaseSync, image: SchemaImage): void {
  const now = new Date().toISOString();
  for (const [table, column] of image.stamped) {
    raw.prepare(`update ${quoted(table)} set ${quoted(column)} = ? where ${quoted(column)} between ? and ?`).run(now, ...image.madeBetween);
  }
}
