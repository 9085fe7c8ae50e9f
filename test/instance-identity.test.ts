// The data directory belongs to one database: the id recorded on both sides at first start, a
// mismatch refused with a one-line reason before anything is written, and the scratch work of
// dead processes removed at start.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { INSTANCE_ID_FILE, InstanceMismatch, checkInstanceIdentity } from '../src/instance-identity.ts';
import { removeLeftovers } from '../src/jobs/remove-leftovers.ts';
import { createSchema, dropSchema } from './harness.ts';
import { MAIN } from './server-process.ts';

const url = process.env.DATABASE_URL || null;
let root: string;
const schemas: string[] = [];
const databases: Database[] = [];

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-instance-'));
});
after(async () => {
  for (const database of databases) await database.close();
  if (url) for (const schema of schemas) await dropSchema(url, schema);
  fs.rmSync(root, { recursive: true, force: true });
});

/** A fresh database of the dialect under test. */
async function freshDatabase(name: string): Promise<Database> {
  const schema = url ? await createSchema(url) : undefined;
  if (schema) schemas.push(schema);
  const database = openDatabase({ url, sqliteFile: path.join(root, `${name}.sqlite3`), pgSchema: schema, poolSize: 2 });
  databases.push(database);
  await migrateToLatest(database.db);
  return database;
}

const configFor = (dataDir: string) => loadConfig({ QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent' });

test('the first start records one id in the database and the data directory; later starts agree', async () => {
  const database = await freshDatabase('one');
  const config = configFor(path.join(root, 'data-one'));
  const id = await checkInstanceIdentity(database.db, config);
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal(fs.readFileSync(path.join(config.dataDir, INSTANCE_ID_FILE), 'utf8').trim(), id);
  assert.equal(await checkInstanceIdentity(database.db, config), id);
});

test("a second database on another's data directory is refused before anything is written", async () => {
  const first = await freshDatabase('first');
  const dataDir = path.join(root, 'shared');
  const config = configFor(dataDir);
  const id = await checkInstanceIdentity(first.db, config);
  const second = await freshDatabase('second');
  await assert.rejects(checkInstanceIdentity(second.db, config), (error: unknown) => {
    assert.ok(error instanceof InstanceMismatch);
    assert.match(error.message, new RegExp(`belongs to instance ${id}, and this database is another one`));
    assert.doesNotMatch(error.message, /\n/);
    return true;
  });
  assert.equal(await second.db.selectFrom('instance_identity').selectAll().executeTakeFirst(), undefined);

  // The other way round: a database that has its id, on a data directory of another instance.
  const elsewhere = configFor(path.join(root, 'elsewhere'));
  await checkInstanceIdentity(second.db, elsewhere);
  await assert.rejects(checkInstanceIdentity(second.db, config), /belongs to instance .* not to this database's instance/);
});

test("a new database refuses storages that hold another database's repositories", async () => {
  const database = await freshDatabase('orphans');
  const config = configFor(path.join(root, 'orphans'));
  fs.mkdirSync(path.join(config.repositoryStorages.default, '@hashed', 'ab'), { recursive: true });
  await assert.rejects(checkInstanceIdentity(database.db, config), /repository storages hold repositories of another database/);
});

test('the server stops with the one-line reason', { skip: Boolean(url) }, () => {
  const dataDir = path.join(root, 'cli');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, INSTANCE_ID_FILE), 'another-instance\n');
  const env = { ...process.env, QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'silent' } as Record<string, string>;
  delete env.DATABASE_URL;
  const run = spawnSync(process.execPath, [MAIN, 'create-user', '--username', 'x', '--email', 'x@example.com'], { env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /^quarry: the data directory .* belongs to instance another-instance, and this database is another one: give it a data directory of its own \(QUARRY_DATA_DIR\)\n$/);
});

test("start-up removes dead processes' scratch work, and only theirs", async () => {
  const config = configFor(path.join(root, 'scratch'));
  const scratch = path.join(config.repositoryStorages.default, '@tmp');
  const pushes = path.join(config.dataDir, 'pushes');
  fs.mkdirSync(scratch, { recursive: true });
  fs.mkdirSync(pushes, { recursive: true });
  // A pid no process has (above the kernel's limit of 2^22).
  const dead = `${os.hostname()}~${2 ** 23}`;
  const live = `${os.hostname()}~${process.pid}`;
  const names = {
    deadStaging: path.join(scratch, `${dead}.abc.git`),
    deadDeleted: path.join(scratch, `${dead}.deleted.abc`),
    deadPush: path.join(pushes, `${dead}-x1`),
    liveStaging: path.join(scratch, `${live}.abc.git`),
    otherNode: path.join(scratch, `another-host~12.abc.git`),
    oldOtherNode: path.join(scratch, `another-host~13.abc.git`),
    compileCache: path.join(pushes, 'compile-cache'),
  };
  for (const dir of Object.values(names)) fs.mkdirSync(path.join(dir, 'objects'), { recursive: true });
  const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
  fs.utimesSync(names.oldOtherNode, twoHoursAgo, twoHoursAgo);

  const database = await freshDatabase('scratch');
  assert.equal(await removeLeftovers({ db: database.db, config, now: () => new Date() }), 4);
  const left = Object.entries(names).filter(([, dir]) => fs.existsSync(dir)).map(([name]) => name);
  assert.deepEqual(left, ['liveStaging', 'otherNode', 'compileCache']);
});
