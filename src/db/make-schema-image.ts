// Makes the schema image (schema-image.ts) of the migrations as they are now: a new database
// migrated in a file of its own, whose bytes SQLite then serializes. For the bundle's build and
// the tests.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { type SchemaImage, readSchemaImage } from './schema-image.ts';

export async function makeSchemaImage(): Promise<SchemaImage> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-schema-image-'));
  const file = path.join(dir, 'image.sqlite');
  try {
    const from = new Date().toISOString();
    const database = openDatabase({ url: null, sqliteFile: file, image: null });
    try {
      await migrateToLatest(database.db);
    } finally {
      await database.close();
    }
    const to = new Date().toISOString();
    const raw = new DatabaseSync(file);
    try {
      // Copies are made in memory or as new files, which choose their own journal.
      raw.exec('PRAGMA journal_mode = DELETE');
      return readSchemaImage(raw, [from, to]);
    } finally {
      raw.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
