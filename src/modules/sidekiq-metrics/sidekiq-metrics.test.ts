// The Sidekiq metrics from the job queue: ready jobs and their wait by kind, run totals kept as
// jobs finish, jobs given up as dead, the answering process; administrators only.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { backgroundJobKinds } from '../../jobs/kinds.ts';
import { CompoundMetricsResponse, JobStatsResponse, ProcessMetricsResponse, QueueMetricsResponse } from './sidekiq-metrics.schemas.ts';

let t: TestApp;
let user: TestUser;

before(async () => {
  t = await createTestApp();
  user = await t.user({ username: 'curious' });
});
after(() => t.close());

async function job(kind: string, runAt: Date, state: 'queued' | 'running' | 'failed' = 'queued', lockedBy: string | null = null) {
  const at = new Date().toISOString();
  await t.deps.db
    .insertInto('background_jobs')
    .values({ kind, payload: '{}', state, run_at: runAt.toISOString(), max_attempts: 1, locked_by: lockedBy, last_error: null, dedupe_key: null, created_at: at, updated_at: at })
    .execute();
}

test('queues: every kind, its ready jobs and the age of the oldest in seconds', async () => {
  await t.deps.db.deleteFrom('background_jobs').execute();
  const now = Date.now();
  await job('zz_test_kind', new Date(now - 90_000));
  await job('zz_test_kind', new Date(now - 10_000));
  await job('zz_test_kind', new Date(now + 3_600_000)); // a retry waiting out its backoff: not ready
  const res = await t.get('/api/v4/sidekiq/queue_metrics', { token: ROOT_TOKEN });
  expectStatus(res, 200);
  expectEntity(res.json(), QueueMetricsResponse);
  const { queues } = res.json();
  assert.equal(queues.zz_test_kind.backlog, 2);
  assert.ok(queues.zz_test_kind.latency >= 90 && queues.zz_test_kind.latency < 120, String(queues.zz_test_kind.latency));
  for (const kind of backgroundJobKinds) assert.deepEqual(queues[kind.name], { backlog: 0, latency: 0 }, kind.name);
  assert.deepEqual(Object.keys(queues), Object.keys(queues).sort());
});

test('job stats: runs counted as they finish, failures, ready and dead jobs', async () => {
  await t.deps.db.deleteFrom('background_jobs').execute();
  await t.deps.db.deleteFrom('background_job_stats').execute();
  const empty = await t.get('/api/v4/sidekiq/job_stats', { token: ROOT_TOKEN });
  expectStatus(empty, 200);
  expectEntity(empty.json(), JobStatsResponse);
  assert.deepEqual(empty.json(), { jobs: { processed: 0, failed: 0, enqueued: 0, dead: 0 } });
  // A kind no worker knows fails for good at once: processed, failed and dead.
  await job('no_such_kind', new Date(Date.now() - 1000));
  await t.runJobs();
  await job('zz_waiting', new Date(Date.now() - 1000));
  await job('zz_later', new Date(Date.now() + 3_600_000));
  const res = await t.get('/api/v4/sidekiq/job_stats', { token: ROOT_TOKEN });
  assert.deepEqual(res.json(), { jobs: { processed: 1, failed: 1, enqueued: 1, dead: 1 } });
  const queues = (await t.get('/api/v4/sidekiq/queue_metrics', { token: ROOT_TOKEN })).json().queues;
  assert.deepEqual(queues.no_such_kind, { backlog: 0, latency: 0 });
});

test('processes: the answering one, with the jobs it runs now', async () => {
  await job('zz_busy', new Date(Date.now() + 60_000), 'running', `${hostname()}:${process.pid}:abc:2026-01-01T00:00:00.000Z`);
  await job('zz_busy', new Date(Date.now() + 60_000), 'running', `elsewhere:1:abc:2026-01-01T00:00:00.000Z`);
  const res = await t.get('/api/v4/sidekiq/process_metrics', { token: ROOT_TOKEN });
  expectStatus(res, 200);
  expectEntity(res.json(), ProcessMetricsResponse);
  const [me, ...others] = res.json().processes;
  assert.deepEqual(others, []);
  assert.deepEqual({ ...me, started_at: '', queues: [] }, { hostname: hostname(), pid: process.pid, tag: 'quarry', started_at: '', queues: [], labels: [], concurrency: 2, busy: 1 });
  assert.deepEqual(me.queues, backgroundJobKinds.map((k) => k.name).sort());
  assert.ok(Date.parse(me.started_at) <= Date.now());
});

test('compound metrics: the three together', async () => {
  const res = await t.get('/api/v4/sidekiq/compound_metrics', { token: ROOT_TOKEN });
  expectStatus(res, 200);
  expectEntity(res.json(), CompoundMetricsResponse);
  const [queues, processes, jobs] = await Promise.all(['queue_metrics', 'process_metrics', 'job_stats'].map(async (p) => (await t.get(`/api/v4/sidekiq/${p}`, { token: ROOT_TOKEN })).json()));
  assert.deepEqual(Object.keys(res.json().queues), Object.keys(queues.queues));
  assert.deepEqual(res.json().jobs, jobs.jobs);
  assert.equal(res.json().processes.length, processes.processes.length);
});

test('administrators only', async () => {
  for (const path of ['queue_metrics', 'process_metrics', 'job_stats', 'compound_metrics']) {
    expectError(await t.get(`/api/v4/sidekiq/${path}`), 401, { message: '401 Unauthorized' });
    expectError(await t.get(`/api/v4/sidekiq/${path}`, { token: user.token }), 403, { message: '403 Forbidden' });
  }
});
