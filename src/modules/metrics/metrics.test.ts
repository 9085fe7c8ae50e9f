// GET /-/metrics: the Prometheus text format, figures that move with what the server does
// (requests, queries, git, background jobs, periodic tasks), and who may read it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { metricsReaders } from '../../core/metrics.ts';
import { GitError, runGit } from '../../git/run.ts';
import { backgroundJobKinds } from '../../jobs/kinds.ts';
import { defineJobKind, enqueue } from '../../jobs/queue.ts';
import { type PeriodicTask, runDueTasks } from '../../jobs/scheduler.ts';
import { drainJobs } from '../../jobs/worker.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { type Exposition, parsePrometheus } from '../../../test/prometheus.ts';

let t: TestApp;
let project: { id: number };

before(async () => {
  t = await createTestApp({ QUARRY_METRICS_ALLOW: '192.0.2.0/24, 2001:db8::/32' });
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'Measured', initialize_with_readme: true } });
  assert.equal(res.statusCode, 201, res.body);
  project = res.json();
});
after(() => t.close());

async function scrape(): Promise<Exposition> {
  const res = await t.get('/-/metrics');
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheus(res.body);
}

const dialect = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

describe('GET /-/metrics', () => {
  test('is the Prometheus text format, with the families of every part of the server and the default process metrics', async () => {
    const { types } = await scrape();
    const expected: Record<string, string> = {
      quarry_http_requests_total: 'counter',
      quarry_http_request_duration_seconds: 'histogram',
      quarry_db_query_duration_seconds: 'histogram',
      quarry_db_query_errors_total: 'counter',
      quarry_git_processes_total: 'counter',
      quarry_git_process_duration_seconds: 'histogram',
      quarry_git_process_failures_total: 'counter',
      quarry_git_cat_file_readers: 'gauge',
      quarry_git_cat_file_reader_restarts_total: 'counter',
      quarry_background_jobs_enqueued_total: 'counter',
      quarry_background_jobs_running: 'gauge',
      quarry_background_job_runs_total: 'counter',
      quarry_background_job_duration_seconds: 'histogram',
      quarry_background_job_latency_seconds: 'histogram',
      quarry_background_jobs: 'gauge',
      quarry_periodic_task_runs_total: 'counter',
      quarry_periodic_task_duration_seconds: 'histogram',
      process_cpu_seconds_total: 'counter',
      process_resident_memory_bytes: 'gauge',
      nodejs_eventloop_lag_seconds: 'gauge',
      nodejs_heap_size_used_bytes: 'gauge',
    };
    for (const [name, type] of Object.entries(expected)) assert.equal(types.get(name), type, name);
  });

  test('requests count by route pattern, method and status, never by URL; unknown routes as `unknown`', async () => {
    const route = '/api/v4/projects/:id';
    const before = await scrape();
    for (let i = 0; i < 3; i++) assert.equal((await t.get(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN })).statusCode, 200);
    assert.equal((await t.get('/api/v4/projects/999999', { token: ROOT_TOKEN })).statusCode, 404);
    assert.equal((await t.get('/no/such/page')).statusCode, 404);
    const now = await scrape();
    const moved = (name: string, labels: Record<string, string>) => (now.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
    assert.equal(moved('quarry_http_requests_total', { route, method: 'GET', status: '200' }), 3);
    assert.equal(moved('quarry_http_request_duration_seconds_count', { route, method: 'GET', status: '200' }), 3);
    assert.equal(moved('quarry_http_request_duration_seconds_bucket', { route, method: 'GET', status: '200', le: '+Inf' }), 3);
    assert.ok(moved('quarry_http_request_duration_seconds_sum', { route, method: 'GET', status: '200' }) > 0);
    assert.equal(moved('quarry_http_requests_total', { route, method: 'GET', status: '404' }), 1);
    assert.equal(moved('quarry_http_requests_total', { route: 'unknown', method: 'GET', status: '404' }), 1);
    assert.ok(!now.samples.some((s) => s.labels.route?.includes(String(project.id)) || s.labels.route?.includes('/no/such')));
    // Each request read the database.
    assert.ok(moved('quarry_db_query_duration_seconds_count', { dialect, statement: 'select' }) >= 4);
  });

  test('git processes count by subcommand, and a failing one as a failure of its kind', async () => {
    const before = await scrape();
    const notRepository = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-metrics-'));
    try {
      await assert.rejects(runGit(notRepository, ['rev-parse', '--verify', 'HEAD']), (e: unknown) => e instanceof GitError && e.kind === 'failed');
      await assert.rejects(runGit(null, ['hash-object', '--stdin'], { input: 'x'.repeat(100), maxOutput: 1 }), (e: unknown) => e instanceof GitError && e.kind === 'output_limit');
    } finally {
      fs.rmSync(notRepository, { recursive: true, force: true });
    }
    // A file read through the repository's long-lived object reader.
    assert.equal((await t.get(`/api/v4/projects/${project.id}/repository/files/README.md?ref=main`, { token: ROOT_TOKEN })).statusCode, 200);
    const now = await scrape();
    const moved = (name: string, labels: Record<string, string>) => (now.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
    assert.ok(moved('quarry_git_processes_total', { subcommand: 'rev-parse' }) >= 1);
    assert.equal(moved('quarry_git_process_failures_total', { subcommand: 'rev-parse', kind: 'failed' }), 1);
    assert.equal(moved('quarry_git_process_failures_total', { subcommand: 'hash-object', kind: 'output_limit' }), 1);
    assert.ok(moved('quarry_git_process_duration_seconds_count', { subcommand: 'rev-parse' }) >= 1);
    assert.ok((now.value('quarry_git_processes_total', { subcommand: 'cat-file' }) ?? 0) >= 1);
    assert.ok((now.value('quarry_git_cat_file_readers') ?? 0) >= 1);
  });

  test('background jobs: enqueued, run, retried and failed by kind, their latency, and the queue by kind and state', async () => {
    const payload = Type.Object({});
    const done = defineJobKind({ name: 'test.metrics_done', payload, run: async () => {} });
    const retried = defineJobKind({ name: 'test.metrics_retried', payload, maxAttempts: 2, run: async () => Promise.reject(new Error('not yet')) });
    const failed = defineJobKind({ name: 'test.metrics_failed', payload, maxAttempts: 1, run: async () => Promise.reject(new Error('never')) });
    for (const kind of [done, done, retried, failed]) await enqueue(t.deps.db, kind, {});
    const outcomes = await drainJobs(t.deps, [...backgroundJobKinds, done, retried, failed]);
    assert.equal(outcomes.filter((o) => o.kind.startsWith('test.metrics_')).length, 4);

    const m = await scrape();
    assert.equal(m.value('quarry_background_jobs_enqueued_total', { kind: 'test.metrics_done' }), 2);
    assert.equal(m.value('quarry_background_job_runs_total', { kind: 'test.metrics_done', outcome: 'completed' }), 2);
    assert.equal(m.value('quarry_background_job_runs_total', { kind: 'test.metrics_retried', outcome: 'retried' }), 1);
    assert.equal(m.value('quarry_background_job_runs_total', { kind: 'test.metrics_failed', outcome: 'failed' }), 1);
    assert.equal(m.value('quarry_background_job_duration_seconds_count', { kind: 'test.metrics_done' }), 2);
    assert.equal(m.value('quarry_background_job_latency_seconds_count', { kind: 'test.metrics_done' }), 2);
    // Claimed as soon as they were enqueued: well under a minute late.
    const latency = m.value('quarry_background_job_latency_seconds_sum', { kind: 'test.metrics_done' }) ?? Infinity;
    assert.ok(latency >= 0 && latency < 60, String(latency));
    assert.equal(m.value('quarry_background_jobs_running', { kind: 'test.metrics_done' }), 0);
    // Read from the table: the retried job waits for its next attempt, the failed one stays.
    assert.equal(m.value('quarry_background_jobs', { kind: 'test.metrics_retried', state: 'queued' }), 1);
    assert.equal(m.value('quarry_background_jobs', { kind: 'test.metrics_failed', state: 'failed' }), 1);
    assert.equal(m.value('quarry_background_jobs', { kind: 'test.metrics_done', state: 'queued' }), undefined);

    // A count that falls to zero reads 0.
    await t.deps.db.deleteFrom('background_jobs').where('kind', '=', 'test.metrics_failed').execute();
    assert.equal((await scrape()).value('quarry_background_jobs', { kind: 'test.metrics_failed', state: 'failed' }), 0);
  });

  test('periodic tasks count their runs by task and outcome', async () => {
    const ok: PeriodicTask = { name: 'test.metrics_ok', everySeconds: 3600, run: async () => {} };
    const broken: PeriodicTask = { name: 'test.metrics_broken', everySeconds: 3600, run: async () => Promise.reject(new Error('broken')) };
    assert.deepEqual(await runDueTasks(t.deps, [ok, broken]), ['test.metrics_ok', 'test.metrics_broken']);
    // Not due again: nothing more is counted.
    assert.deepEqual(await runDueTasks(t.deps, [ok, broken]), []);
    const m = await scrape();
    assert.equal(m.value('quarry_periodic_task_runs_total', { task: 'test.metrics_ok', outcome: 'ok' }), 1);
    assert.equal(m.value('quarry_periodic_task_runs_total', { task: 'test.metrics_broken', outcome: 'failed' }), 1);
    assert.equal(m.value('quarry_periodic_task_duration_seconds_count', { task: 'test.metrics_ok' }), 1);
  });

  test('answers loopback and QUARRY_METRICS_ALLOW; anyone else gets the answer of an unknown route', async () => {
    const unknown = await t.app.inject({ url: '/no/such/page', remoteAddress: '198.51.100.7' });
    for (const remoteAddress of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '192.0.2.200', '::ffff:192.0.2.1', '2001:db8::5']) {
      const res = await t.app.inject({ url: '/-/metrics', remoteAddress });
      assert.equal(res.statusCode, 200, remoteAddress);
      assert.match(res.body, /^# HELP /, remoteAddress);
    }
    for (const remoteAddress of ['198.51.100.7', '192.0.3.1', '10.0.0.1', '2001:db9::1', '::ffff:10.0.0.1', 'fe80::1']) {
      const res = await t.app.inject({ url: '/-/metrics', remoteAddress, headers: { 'x-forwarded-for': '127.0.0.1' } });
      assert.equal(res.statusCode, 404, remoteAddress);
      assert.equal(res.body, unknown.body);
      assert.equal(res.headers['content-type'], unknown.headers['content-type']);
    }
  });
});

test('metricsReaders: loopback always, the ranges given, IPv4-mapped addresses as IPv4', () => {
  const none = metricsReaders([]);
  assert.deepEqual(['127.0.0.1', '::1', '::ffff:127.0.0.2', '10.0.0.1', '::2', undefined, 'garbage'].map(none), [true, true, true, false, false, false, false]);
  const some = metricsReaders(['10.1.0.0/16', '192.0.2.9/32', 'fd00::/8', '::ffff:172.16.0.0/108']);
  assert.deepEqual(
    ['10.1.200.3', '10.2.0.1', '192.0.2.9', '192.0.2.10', 'fd12::1', 'fe00::1', '172.16.5.5', '::ffff:172.16.5.5', '172.32.0.1'].map(some),
    [true, false, true, false, true, false, true, true, false],
  );
});
