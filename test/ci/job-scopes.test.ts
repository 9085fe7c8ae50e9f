// GET /projects/:id/jobs?scope=…: the jobs of those statuses, newest first, with X-Total counted
// from the statuses' index range, and left out (as the platform does) past 10,000 rows.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntities, expectStatus } from '../matchers.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
});
after(() => t.close());

test('scoped lists count their rows up to 10,000, and leave X-Total out beyond', async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('a:\n  script: [x]\nb:\n  script: [x]\nc:\n  script: [x]\n');
  const first = (await ci.takeJob(runner)) as { id: number; token: string };
  await ci.finishJob(first, 'failed');
  const list = (query: Record<string, string | string[]>) => t.get(`/api/v4/projects/${ci.projectId}/jobs`, { token: ci.owner.token, query: query as Record<string, string> });

  const failed = await list({ scope: 'failed' });
  expectStatus(failed, 200);
  expectEntities(failed.json(), JobEntity);
  assert.deepEqual(failed.json().map((j: { id: number }) => j.id), [first.id]);
  assert.equal(failed.headers['x-total'], '1');
  const open = await list({ 'scope[]': ['pending', 'failed'] });
  assert.equal(open.headers['x-total'], '3');
  assert.deepEqual(open.json().map((j: { status: string }) => j.status).sort(), ['failed', 'pending', 'pending']);

  // 10,000 more failed jobs, copies of the first.
  const template = await t.deps.db.selectFrom('ci_builds').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
  const { id: _id, ...row } = template;
  const insert = async (count: number) => {
    for (let done = 0; done < count; done += 500) {
      await t.deps.db.insertInto('ci_builds').values(Array.from({ length: Math.min(500, count - done) }, () => ({ ...row, token_digest: null }))).execute();
    }
  };
  await insert(9_999);
  const exactly = await list({ scope: 'failed' });
  assert.equal(exactly.headers['x-total'], '10000');
  assert.match(String(exactly.headers.link), /rel="last"/);
  await insert(1);
  const beyond = await list({ scope: 'failed' });
  expectStatus(beyond, 200);
  assert.equal(beyond.json().length, 20);
  assert.equal(beyond.headers['x-total'], undefined);
  assert.equal(beyond.headers['x-total-pages'], undefined);
  assert.equal(beyond.headers['x-next-page'], '2');
  assert.doesNotMatch(String(beyond.headers.link), /rel="last"/);
  // Unscoped, the project's counter answers: past 10,000 too.
  assert.equal((await list({})).headers['x-total'], undefined);
});
