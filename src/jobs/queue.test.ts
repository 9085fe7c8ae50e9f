// The durable queue on its own database (a SQLite file, or a PostgreSQL schema): wake-up without
// polling delay, retries with backoff and their end, deduplication, and a worker process killed
// in the middle of a job whose job then runs again after a restart.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { createSchema, dropSchema } from '../../test/harness.ts';
import { createDeps } from '../bootstrap.ts';
import { loadConfig } from '../config.ts';
import type { Deps } from '../core/deps.ts';
import { type Database, openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { PermanentJobError, defineJobKind, enqueue, releaseOrphanedClaims, retryDelaySeconds } from './queue.ts';
import { drainJobs, startWorker } from './worker.ts';

const url = process.env.DATABASE_URL || null;
let dir: string;
let schema: string | undefined;
let database: Database;
let deps: Deps;

const open = () => openDatabase({ url, sqliteFile: path.join(dir, 'quarry.sqlite3'), pgSchema: schema, poolSize: 3 });

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-queue-'));
  schema = url ? await createSchema(url) : undefined;
  database = open();
  await migrateToLatest(database.db);
  deps = createDeps(loadConfig({ QUARRY_DATA_DIR: dir, QUARRY_LOG_LEVEL: 'silent' }), database);
});
after(async () => {
  await database.close();
  if (url && schema) await dropSchema(url, schema);
  fs.rmSync(dir, { recursive: true, force: true });
});

const jobs = () => deps.db.selectFrom('background_jobs').selectAll().orderBy('id').execute();
const clear = () => deps.db.deleteFrom('background_jobs').execute();

test('a job enqueued in a transaction exists only if the transaction commits, and runs within 50 ms', async () => {
  const ran: { n: number; at: number }[] = [];
  const note = defineJobKind({ name: 'test.note', payload: Type.Object({ n: Type.Integer() }), run: async (_ctx, { n }) => void ran.push({ n, at: Date.now() }) });
  // Polling once a minute: only the wake-up can explain a prompt run.
  const worker = await startWorker(deps, { kinds: [note], pollMs: 60_000 });
  try {
    await assert.rejects(
      deps.db.transaction().execute(async (trx) => {
        await enqueue(trx, note, { n: 1 });
        throw new Error('the change failed');
      }),
    );
    // The best of three, as the machine may be busy with other work.
    const latencies: number[] = [];
    for (const n of [2, 3, 4]) {
      const started = Date.now();
      await deps.db.transaction().execute((trx) => enqueue(trx, note, { n }));
      while (ran.length < n - 1 && Date.now() - started < 2000) await new Promise((r) => setTimeout(r, 1));
      latencies.push((ran.at(-1)?.at ?? Infinity) - started);
    }
    assert.deepEqual(ran.map((r) => r.n), [2, 3, 4]);
    assert.ok(Math.min(...latencies) < 50, `ran after ${latencies.join(', ')} ms`);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await jobs(), []);
  } finally {
    await worker.stop();
  }
});

test('on PostgreSQL a job enqueued by another node wakes this one at once', { skip: !url }, async () => {
  const ran: number[] = [];
  const note = defineJobKind({ name: 'test.note', payload: Type.Object({ n: Type.Integer() }), run: async (_ctx, { n }) => void ran.push(n) });
  const worker = await startWorker(deps, { kinds: [note], pollMs: 60_000 });
  const other = open();
  try {
    // Skip this process's own wake-up: only NOTIFY can tell the worker.
    const started = Date.now();
    await other.db.transaction().execute(async (trx) => {
      await trx.insertInto('background_jobs').values({ kind: 'test.note', payload: '{"n":7}', state: 'queued', run_at: new Date().toISOString(), max_attempts: 3, locked_by: null, last_error: null, dedupe_key: null, created_at: '', updated_at: '' }).execute();
      await enqueue(trx, note, { n: 8 });
    });
    while (ran.length < 2 && Date.now() - started < 2000) await new Promise((r) => setTimeout(r, 2));
    assert.deepEqual(ran.sort(), [7, 8]);
    assert.ok(Date.now() - started < 500);
  } finally {
    await worker.stop();
    await other.close();
  }
});

test('a failing job is retried with backoff, keeps its last error, and fails for good after its attempts', async () => {
  await clear();
  let calls = 0;
  const undone: number[] = [];
  const flaky = defineJobKind({
    name: 'test.flaky',
    payload: Type.Object({ id: Type.Integer() }),
    maxAttempts: 2,
    async run() {
      calls += 1;
      throw new Error(`attempt ${calls} failed`);
    },
    failed: async (_ctx, { id }) => void undone.push(id),
  });
  await enqueue(deps.db, flaky, { id: 4 });
  assert.deepEqual((await drainJobs(deps, [flaky])).map((o) => o.ok), [false]);
  let [job] = await jobs();
  assert.equal(job.state, 'queued');
  assert.equal(job.attempts, 1);
  assert.match(job.last_error ?? '', /attempt 1 failed/);
  const delay = Date.parse(job.run_at) - Date.parse(job.updated_at);
  assert.equal(delay, retryDelaySeconds(1) * 1000);
  // Not due yet: nothing runs.
  assert.deepEqual(await drainJobs(deps, [flaky]), []);
  await deps.db.updateTable('background_jobs').set({ run_at: new Date(0).toISOString() }).execute();
  await drainJobs(deps, [flaky]);
  [job] = await jobs();
  assert.equal(job.state, 'failed');
  assert.equal(job.attempts, 2);
  assert.match(job.last_error ?? '', /attempt 2 failed/);
  assert.deepEqual(undone, [4]);
  assert.deepEqual(retryDelaySeconds(1) < retryDelaySeconds(2) && retryDelaySeconds(20), 3600);
});

test('a permanent error, an unknown kind or a bad payload fail at once; a bad payload is refused at enqueue', async () => {
  await clear();
  const doomed = defineJobKind({ name: 'test.doomed', payload: Type.Object({}, { additionalProperties: false }), run: async () => { throw new PermanentJobError('cannot ever work'); } });
  await enqueue(deps.db, doomed, {});
  await deps.db.insertInto('background_jobs').values({ kind: 'test.gone', payload: '{}', state: 'queued', run_at: new Date(0).toISOString(), max_attempts: 5, locked_by: null, last_error: null, dedupe_key: null, created_at: '', updated_at: '' }).execute();
  await drainJobs(deps, [doomed]);
  assert.deepEqual((await jobs()).map((j) => [j.kind, j.state, j.attempts, (j.last_error ?? '').split('\n')[0]]), [
    ['test.doomed', 'failed', 1, 'Error: cannot ever work'],
    ['test.gone', 'failed', 1, 'Error: unknown background job kind "test.gone"'],
  ]);
  await assert.rejects(enqueue(deps.db, doomed, { extra: 1 } as never), /invalid payload/);
});

test('while a job with a dedupe key waits, the same key enqueues nothing; once claimed, it may again', async () => {
  await clear();
  const kind = defineJobKind({ name: 'test.dedupe', payload: Type.Object({}), run: async () => {} });
  const first = await enqueue(deps.db, kind, {}, { dedupeKey: 'p1' });
  assert.equal(typeof first, 'number');
  assert.equal(await enqueue(deps.db, kind, {}, { dedupeKey: 'p1' }), null);
  assert.equal(typeof (await enqueue(deps.db, kind, {}, { dedupeKey: 'p2' })), 'number');
  assert.equal((await jobs()).length, 2);
  await drainJobs(deps, [kind]);
  assert.equal(typeof (await enqueue(deps.db, kind, {}, { dedupeKey: 'p1' })), 'number');
  await clear();
});

test('a worker process killed in the middle of a job: on restart the job is taken back and runs again', async (t) => {
  await clear();
  const marker = path.join(dir, 'hang-started');
  const hangPayload = Type.Object({ n: Type.Integer() });
  await enqueue(deps.db, defineJobKind({ name: 'test.hang', payload: hangPayload, run: async () => {} }), { n: 1 });
  const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../../test/fixtures/hanging-job-worker.ts')], {
    env: { ...process.env, HANG_MARKER: marker, HANG_DATA_DIR: dir, HANG_SQLITE_FILE: path.join(dir, 'quarry.sqlite3'), ...(schema ? { HANG_PG_SCHEMA: schema } : {}) },
    stdio: 'inherit',
  });
  // On a failure below, the worker is not left behind.
  t.after(() => child.kill('SIGKILL'));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 400 && !fs.existsSync(marker); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(fs.existsSync(marker), 'the worker process started the job');
  child.kill('SIGKILL');
  await exited;

  let [job] = await jobs();
  assert.equal(job.state, 'running');
  assert.match(job.locked_by ?? '', new RegExp(`:${child.pid}:`));
  // Its claim would hold for minutes; a restart on this host sees its process is gone.
  assert.equal(await releaseOrphanedClaims(deps.db), 1);
  const ran: number[] = [];
  const finish = defineJobKind({ name: 'test.hang', payload: hangPayload, run: async (_ctx, { n }) => void ran.push(n) });
  [job] = await jobs();
  assert.equal(job.state, 'queued');
  assert.deepEqual((await drainJobs(deps, [finish])).map((o) => o.ok), [true]);
  assert.deepEqual(ran, [1]);
  assert.deepEqual(await jobs(), []);
});
