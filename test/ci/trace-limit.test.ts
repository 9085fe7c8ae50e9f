// The log size limit (notes gitlab-ci.md §1.6; the platform's plan limit ci_jobs_trace_size_limit,
// QUARRY_CI_MAX_TRACE_SIZE here): a log append whose end would reach the limit fails the job with
// trace_size_exceeded and answers 403, keeping the log as it was; the runner's next call learns the
// job failed. 0 lifts the limit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';
import { ciProject } from './fixtures.ts';

const LIMIT = 1000;

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0', QUARRY_CI_MAX_TRACE_SIZE: String(LIMIT) });
});
after(() => t.close());

function patch(job: { id: number; token: string }, start: number, body: string) {
  return t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, {
    headers: { 'job-token': job.token, 'content-range': `${start}-${start + body.length - 1}`, 'content-type': 'text/plain' },
    body,
  });
}

test('an append that would reach the limit fails the job with trace_size_exceeded and answers 403; the log stays as it was', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('build:\n  script: [make]\nafter:\n  stage: deploy\n  script: [ship]\n');
  const job = await ci.takeJob(runner);
  assert.ok(job);
  const first = 'x'.repeat(LIMIT - 1);
  expectStatus(await patch(job, 0, first), 202);

  expectError(await patch(job, LIMIT - 1, 'y'), 403, { message: '403 Forbidden' });
  const row = await t.deps.db.selectFrom('ci_builds').select(['status', 'failure_reason', 'trace_size']).where('id', '=', job.id).executeTakeFirstOrThrow();
  assert.deepEqual({ ...row, trace_size: Number(row.trace_size) }, { status: 'failed', failure_reason: 'trace_size_exceeded', trace_size: LIMIT - 1 });
  const log = await t.get(`/api/v4/projects/${ci.projectId}/jobs/${job.id}/trace`, { token: ci.owner.token });
  assert.equal(log.body, first);

  // The runner's next calls are refused with the job's status; the pipeline went on without it.
  const update = await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success' } });
  expectStatus(update, 403);
  assert.equal(update.headers['job-status'], 'failed');
  const again = await patch(job, LIMIT - 1, 'y');
  expectStatus(again, 403);
  assert.equal(again.headers['job-status'], 'failed');
  await t.runJobs();
  const shown = await t.get(`/api/v4/projects/${ci.projectId}/jobs/${job.id}`, { token: ci.owner.token });
  expectEntity(shown.json(), JobEntity);
  assert.equal(shown.json().status, 'failed');
  const [pipeline] = await ci.pipelines();
  assert.equal(pipeline.status, 'failed');
  assert.deepEqual(await ci.jobStates(pipeline.id), [['after', 'skipped'], ['build', 'failed']]);
});

test('the end the runner claims is what counts, before its start is checked (as the platform judges it)', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('build:\n  script: [make]\n');
  const job = await ci.takeJob(runner);
  assert.ok(job);
  expectStatus(await patch(job, 0, 'hello\n'), 202);
  expectError(await patch(job, LIMIT, 'far'), 403, { message: '403 Forbidden' });
  const row = await t.deps.db.selectFrom('ci_builds').select('failure_reason').where('id', '=', job.id).executeTakeFirstOrThrow();
  assert.equal(row.failure_reason, 'trace_size_exceeded');
});

test('a log below the limit is untouched; a wrong token is refused before anything', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('build:\n  script: [make]\n');
  const job = await ci.takeJob(runner);
  assert.ok(job);
  expectError(await patch({ id: job.id, token: 'glcbt-wrong' }, 0, 'x'.repeat(LIMIT)), 403, { message: '403 Forbidden' });
  const ok = await patch(job, 0, 'x'.repeat(LIMIT - 2));
  expectStatus(ok, 202);
  assert.equal(ok.headers.range, `0-${LIMIT - 2}`);
  await ci.finishJob(job, 'success');
  const row = await t.deps.db.selectFrom('ci_builds').select(['status', 'failure_reason']).where('id', '=', job.id).executeTakeFirstOrThrow();
  assert.deepEqual(row, { status: 'success', failure_reason: null });
});

test('QUARRY_CI_MAX_TRACE_SIZE: 100 MiB by default, 0 for no limit, a whole number of bytes', () => {
  assert.equal(loadConfig({}).ciMaxTraceBytes, 100 * 1024 * 1024);
  assert.equal(loadConfig({ QUARRY_CI_MAX_TRACE_SIZE: '0' }).ciMaxTraceBytes, 0);
  assert.throws(() => loadConfig({ QUARRY_CI_MAX_TRACE_SIZE: '10MB' }), ConfigError);
  assert.throws(() => loadConfig({ QUARRY_CI_MAX_TRACE_SIZE: '-1' }), ConfigError);
});

test('with no limit, a long log is taken whole', async () => {
  const free = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0', QUARRY_CI_MAX_TRACE_SIZE: '0' });
  try {
    const ci = await ciProject(free);
    const runner = await ci.registerRunner();
    await ci.commitConfig('build:\n  script: [make]\n');
    const job = await ci.takeJob(runner);
    assert.ok(job);
    const body = 'z'.repeat(300 * 1024);
    const res = await free.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': `0-${body.length - 1}`, 'content-type': 'text/plain' }, body });
    expectStatus(res, 202);
    assert.equal(res.headers.range, `0-${body.length}`);
  } finally {
    await free.close();
  }
});
