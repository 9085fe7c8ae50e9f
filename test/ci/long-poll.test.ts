// Long polling of job requests (issue 13 §4; notes gitlab-ci.md §8.6): a request that says what it
// last saw waits until a job it can take becomes pending, or the hold time ends; one that does not
// is answered at once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectStatus } from '../matchers.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '1' });
});
after(() => t.close());

test('a waiting request gets the job as soon as it is pending; otherwise 204 once the hold time ends', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('only:\n  script: [x]\n  when: manual\n');

  const immediate = performance.now();
  const quick = await t.post('/api/v4/jobs/request', { body: { token: runner } });
  expectStatus(quick, 204);
  assert.ok(performance.now() - immediate < 500);
  assert.equal(quick.headers['gitlab-ci-builds-polling'], 'yes');

  const held = performance.now();
  const empty = await t.post('/api/v4/jobs/request', { body: { token: runner, last_update: quick.headers['x-gitlab-last-update'] } });
  expectStatus(empty, 204);
  assert.ok(performance.now() - held >= 900, 'held for the hold time');

  const waiting = t.post('/api/v4/jobs/request', { body: { token: runner, last_update: 'x' } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const [pipeline] = await ci.pipelines();
  const jobs = (await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${pipeline.id}/jobs`, { token: ci.owner.token })).json();
  const played = performance.now();
  expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${jobs[0].id}/play`, { token: ci.owner.token }), 200);
  const answer = await waiting;
  expectStatus(answer, 201);
  assert.equal(answer.json().job_info.name, 'only');
  assert.ok(performance.now() - played < 500, 'handed out on waking, not at the end of the hold');
});

test('a waiting runner paused or deleted meanwhile takes nothing when a job becomes pending', async () => {
  for (const change of ['pause', 'delete'] as const) {
    const ci = await ciProject(t);
    await ci.commitConfig('one:\n  script: [x]\n  when: manual\n');
    const [pipeline] = await ci.pipelines();
    const [job] = (await t.get(`/api/v4/projects/${ci.projectId}/pipelines/${pipeline.id}/jobs`, { token: ci.owner.token })).json() as { id: number }[];
    const token = await ci.registerRunner();
    const row = await t.deps.db.selectFrom('ci_runners').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const waiting = t.post('/api/v4/jobs/request', { body: { token, last_update: 'x' } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    if (change === 'pause') await t.deps.db.updateTable('ci_runners').set({ active: false }).where('id', '=', row.id).execute();
    else await t.deps.db.deleteFrom('ci_runners').where('id', '=', row.id).execute();
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${job.id}/play`, { token: ci.owner.token }), 200);
    expectStatus(await waiting, 204);
    const stored = await t.deps.db.selectFrom('ci_builds').select(['status', 'runner_id']).where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.deepEqual(stored, { status: 'pending', runner_id: null }, change);
  }
});
