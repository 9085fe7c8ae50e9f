// What happens to jobs after they run: automatic retries from `retry:`, coverage read from the
// log, delayed jobs becoming pending at their time, and the stuck-jobs task.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectStatus } from '../matchers.ts';
import { systemContext } from '../../src/core/context.ts';
import { dropStuckJobs } from '../../src/modules/ci-jobs/ci-jobs.service.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
});
after(() => t.close());

test('retry: a failed job runs again up to max times, only for the reasons listed', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('flaky:\n  script: [x]\n  retry:\n    max: 2\n    when: [script_failure]\n');
  for (let i = 0; i < 3; i++) {
    const job = await ci.takeJob(runner);
    assert.ok(job, `attempt ${i + 1}`);
    await ci.finishJob(job, 'failed', { failure_reason: 'script_failure' });
  }
  assert.equal(await ci.takeJob(runner), null);
  const [pipeline] = await ci.pipelines();
  assert.equal(pipeline.status, 'failed');
  assert.deepEqual(await ci.jobStates(pipeline.id, true), [['flaky', 'failed'], ['flaky', 'failed'], ['flaky', 'failed']]);
  // The lists' totals come from counters: retried jobs are not counted.
  const list = await t.get(`/api/v4/projects/${ci.projectId}/jobs`, { token: ci.owner.token });
  assert.equal(list.headers['x-total'], '1');
  assert.equal((await t.get(`/api/v4/projects/${ci.projectId}/pipelines`, { token: ci.owner.token })).headers['x-total'], '1');

  await ci.commitConfig('other:\n  script: [x]\n  retry:\n    max: 2\n    when: [runner_system_failure]\n');
  const job = await ci.takeJob(runner);
  assert.ok(job);
  await ci.finishJob(job, 'failed', { failure_reason: 'script_failure' });
  assert.equal(await ci.takeJob(runner), null);
});

test('coverage: the last match in the log, from the end, is the job\'s coverage and the pipeline\'s', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig("cov:\n  script: [x]\n  coverage: '/Total: (\\d+\\.\\d+)%/'\n");
  const job = await ci.takeJob(runner);
  assert.ok(job);
  const log = 'Total: 10.00%\nsomething\nTotal: 87.50%\ndone\n';
  const patch = await t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': `0-${log.length - 1}`, 'content-type': 'text/plain' }, body: log });
  expectStatus(patch, 202);
  await ci.finishJob(job, 'success');
  const shown = (await t.get(`/api/v4/projects/${ci.projectId}/jobs/${job.id}`, { token: ci.owner.token })).json();
  assert.equal(shown.coverage, 87.5);
  const [pipeline] = await ci.pipelines();
  assert.equal((await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${pipeline.id}`, { token: ci.owner.token })).json().coverage, '87.50');
});

test('a delayed job is scheduled, then pending at its time', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('later:\n  script: [x]\n  when: delayed\n  start_in: 1 second\n');
  const [pipeline] = await ci.pipelines();
  assert.equal(pipeline.status, 'scheduled');
  assert.equal(await ci.takeJob(runner), null);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await t.runJobs();
  const job = await ci.takeJob(runner);
  assert.equal(job?.job_info.name, 'later');
});

test('the stuck-jobs task fails a silent running job and a pending job no runner can take', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner({ tag_list: 'linux', run_untagged: false });
  await ci.commitConfig('a:\n  script: [x]\n  tags: [linux]\nb:\n  script: [x]\n  tags: [windows]\n');
  const job = await ci.takeJob(runner);
  assert.equal(job?.job_info.name, 'a');
  const later = { ...t.deps, now: () => new Date(Date.now() + 2 * 3600 * 1000) };
  // The other tests' jobs, two hours on, are stuck too.
  assert.ok((await dropStuckJobs(systemContext(later))) >= 2);
  await t.runJobs();
  const [pipeline] = await ci.pipelines();
  assert.deepEqual(await ci.jobStates(pipeline.id), [['b', 'failed'], ['a', 'failed']]);
  const rows = await t.deps.db.selectFrom('ci_builds').select(['name', 'failure_reason']).where('pipeline_id', '=', pipeline.id).orderBy('name').execute();
  assert.deepEqual(rows, [{ name: 'a', failure_reason: 'stuck_or_timeout_failure' }, { name: 'b', failure_reason: 'stuck_or_timeout_failure' }]);
  const update = await t.put(`/api/v4/jobs/${job?.id}`, { body: { token: job?.token, state: 'running' } });
  expectStatus(update, 403);
  assert.equal(update.headers['job-status'], 'failed');
});

test('a new pipeline on a ref cancels older ones whose started jobs are all interruptible', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('a:\n  script: [x]\n  interruptible: true\nb:\n  script: [x]\n');
  const job = await ci.takeJob(runner);
  assert.equal(job?.job_info.name, 'a');
  await ci.commitConfig('a:\n  script: [x]\n  interruptible: true\nb:\n  script: [y]\n', 'second');
  const [second, first] = await ci.pipelines();
  assert.equal(first.status, 'canceled');
  assert.equal(second.status, 'pending');
  // Not when a started job is not interruptible.
  assert.equal((await ci.takeJob(runner))?.job_info.name, 'a');
  assert.equal((await ci.takeJob(runner))?.job_info.name, 'b');
  await ci.commitConfig('a:\n  script: [x]\n  interruptible: true\nb:\n  script: [z]\n', 'third');
  const [, previous] = await ci.pipelines();
  assert.equal(previous.id, second.id);
  assert.notEqual(previous.status, 'canceled');
});

test('the counters of pipelines and latest jobs agree with the rows after retries and deletions', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('a:\n  script: [x]\nb:\n  script: [x]\n');
  const job = await ci.takeJob(runner);
  assert.ok(job);
  await ci.finishJob(job, 'failed');
  expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${job.id}/retry`, { token: ci.owner.token }), 201);
  await ci.commitConfig('c:\n  script: [x]\n', 'again');
  const [latest] = await ci.pipelines();
  expectStatus(await t.del(`/api/v4/projects/${ci.projectId}/pipelines/${latest.id}`, { token: ci.owner.token }), 204);
  const counted = await t.deps.db.selectFrom('ci_project_counts').selectAll().where('project_id', '=', ci.projectId).executeTakeFirstOrThrow();
  const pipelines = await t.deps.db.selectFrom('ci_pipelines').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', ci.projectId).executeTakeFirstOrThrow();
  const jobs = await t.deps.db.selectFrom('ci_builds').select((eb) => eb.fn.countAll<number>().as('n')).where('project_id', '=', ci.projectId).where('type', '=', 'build').where('retried', '=', false).executeTakeFirstOrThrow();
  assert.deepEqual([Number(counted.pipelines), Number(counted.jobs)], [Number(pipelines.n), Number(jobs.n)]);
  assert.deepEqual([Number(counted.pipelines), Number(counted.jobs)], [1, 2]);
});
