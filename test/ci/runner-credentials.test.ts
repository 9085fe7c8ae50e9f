// Which credential each runner-protocol route accepts, and what it answers the others (notes
// gitlab-ci.md §1 and §8; 14.x `lib/api/ci/runner.rb` and its helpers): runner routes take a
// registration token (POST /runners) or a runner's token, whose runner may be paused; job routes
// take the job's own token while the job runs, and the artifacts download also a finished job's
// own token or that of a running job of its pipeline. A token the route requires and that is
// missing is a 400; any other refusal a 403, with the job's status when the job no longer runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';
import { RunnerRegistrationEntity } from '../../src/modules/runners/runners.schemas.ts';
import { type CiProject, ciProject } from './fixtures.ts';
import { multipart, zip } from './ci-test-helpers.ts';

let t: TestApp;
let ci: CiProject;
/** The project's runner, which took the jobs below. */
let runner: string;
let pausedRunner: string;
/** A runner of another project. */
let otherRunner: string;
type Taken = { id: number; token: string };
/** Running jobs of one pipeline, and a finished one with an archive. */
let job: Taken;
let sibling: Taken;
let finished: Taken;
/** A running job of another project's pipeline. */
let foreign: Taken;
let archive: Buffer;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  ci = await ciProject(t);
  runner = await ci.registerRunner();
  pausedRunner = await ci.registerRunner({ paused: true });
  const other = await ciProject(t);
  otherRunner = await other.registerRunner();
  await other.commitConfig('there:\n  script: [x]\n');
  foreign = (await other.takeJob(otherRunner)) as Taken;
  await ci.commitConfig('a:\n  script: [x]\nb:\n  script: [x]\nc:\n  script: [x]\n  artifacts:\n    paths: [out/]\n');
  [job, sibling, finished] = [(await ci.takeJob(runner)) as Taken, (await ci.takeJob(runner)) as Taken, (await ci.takeJob(runner)) as Taken];
  archive = await zip({ 'out/a.txt': 'a' });
  expectStatus(await upload(finished.id, finished.token), 201);
  await ci.finishJob(finished, 'success');
});
after(() => t.close());

function upload(jobId: number, token: string | undefined) {
  const { body, contentType } = multipart({ filename: 'artifacts.zip', content: archive });
  return t.post(`/api/v4/jobs/${jobId}/artifacts`, { headers: { 'content-type': contentType, ...(token ? { 'job-token': token } : {}) }, body });
}
const body = (token: string | undefined, extra: Record<string, unknown> = {}) => ({ body: { ...(token ? { token } : {}), ...extra } });
const jobHeader = (token: string | undefined): Record<string, string> => (token ? { 'job-token': token } : {});

/** A credential, and the job the job routes are asked about with it (the artifacts download: the finished job). */
interface Credential {
  token: () => string | undefined;
  job: () => number;
}
const ROUTES: Record<string, (c: Credential) => Promise<LightMyRequestResponse>> = {
  'POST /runners': (c) => t.post('/api/v4/runners', body(c.token())),
  'POST /runners/verify': (c) => t.post('/api/v4/runners/verify', body(c.token())),
  'POST /jobs/request': (c) => t.post('/api/v4/jobs/request', body(c.token())),
  'PUT /jobs/:id': (c) => t.put(`/api/v4/jobs/${c.job()}`, body(c.token(), { state: 'running' })),
  'PATCH /jobs/:id/trace': (c) => t.request('PATCH', `/api/v4/jobs/${c.job()}/trace`, { headers: { ...jobHeader(c.token()), 'content-range': '0-1', 'content-type': 'text/plain' }, body: 'xy' }),
  'POST /jobs/:id/artifacts': (c) => upload(c.job(), c.token()),
  'GET /jobs/:id/artifacts': (c) => t.get(`/api/v4/jobs/${finished.id}/artifacts`, { headers: jobHeader(c.token()) }),
};

/** An answer: a status, and the Job-Status header a refusal of a job that no longer runs carries. */
type Answer = number | [number, string];
const row = (token: () => string | undefined, answers: Answer[], target: () => number = () => job.id) => ({ credential: { token, job: target }, answers });

//                                                 register  verify  request  PUT  PATCH  upload  download
const TABLE = {
  'no token': row(() => undefined, [400, 400, 400, 400, 403, 403, 403]),
  'an unknown token': row(() => 'glrt-unknown-token-0000', [403, 403, 403, 403, 403, 403, 403]),
  "a paused runner's token": row(() => pausedRunner, [403, 200, 204, 403, 403, 403, 403]),
  "another project's runner's token": row(() => otherRunner, [403, 200, 204, 403, 403, 403, 403]),
  "a finished job's own token": row(() => finished.token, [403, 403, 403, [403, 'success'], [403, 'success'], [403, 'success'], 200], () => finished.id),
  "another running job's token, same pipeline": row(() => sibling.token, [403, 403, 403, 403, 403, 403, 200]),
  "a running job's token, another pipeline": row(() => foreign.token, [403, 403, 403, 403, 403, 403, 403]),
  'a personal access token': row(() => ci.owner.token, [403, 403, 403, 403, 403, 403, 403]),
};

describe('which credential each runner route accepts', () => {
  for (const [name, { credential, answers }] of Object.entries(TABLE)) {
    test(name, async () => {
      for (const [i, [route, call]] of Object.entries(ROUTES).entries()) {
        const [status, jobStatus] = typeof answers[i] === 'number' ? [answers[i], undefined] : answers[i];
        const res = await call(credential);
        assert.equal(res.statusCode, status, `${route}: ${res.statusCode} ${res.body}`);
        assert.equal(res.headers['job-status'], jobStatus, `${route}: Job-Status`);
        if (status === 400) assert.deepEqual(res.json(), { error: 'token is missing' }, route);
        if (status === 403) assert.equal(res.json().message, jobStatus ? '403 Forbidden - Job is not running' : '403 Forbidden', route);
      }
    });
  }

  test("the right credential: a registration token, a runner's, the running job's own", async () => {
    const registered = await t.post('/api/v4/runners', body(ci.runnersToken));
    expectStatus(registered, 201);
    expectEntity(registered.json(), RunnerRegistrationEntity);
    expectStatus(await t.post('/api/v4/runners/verify', body(runner)), 200);
    expectStatus(await t.post('/api/v4/jobs/request', { headers: { 'runner-token': runner } }), 204);
    expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { headers: { 'job-token': job.token }, body: { state: 'running' } }), 200);
    expectStatus(await t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { query: { token: job.token }, headers: { 'content-range': '0-1', 'content-type': 'text/plain' }, body: 'ok' }), 202);
    expectStatus(await upload(job.id, job.token), 201);
    expectStatus(await t.get(`/api/v4/jobs/${job.id}/artifacts`, { query: { token: job.token } }), 200);
    // Pausing the runner that took a job does not take the job's token away.
    await t.deps.db.updateTable('ci_runners').set({ active: false }).where('token_digest', '!=', '').execute();
    expectStatus(await t.put(`/api/v4/jobs/${sibling.id}`, body(sibling.token, { state: 'running' })), 200);
    await t.deps.db.updateTable('ci_runners').set({ active: true }).where('token_digest', '!=', '').execute();
  });

  test('a job that does not exist is refused as a wrong token is', async () => {
    expectError(await t.put('/api/v4/jobs/999999', body(job.token, { state: 'running' })), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/jobs/999999/artifacts', { headers: jobHeader(job.token) }), 403, { message: '403 Forbidden' });
  });

  test("DELETE /runners takes a runner's token, paused or not", async () => {
    expectError(await t.del('/api/v4/runners', body(undefined)), 400, { error: 'token is missing' });
    for (const token of ['glrt-unknown-token-0000', job.token, ci.owner.token, ci.runnersToken]) expectError(await t.del('/api/v4/runners', body(token)), 403, { message: '403 Forbidden' });
    expectStatus(await t.del('/api/v4/runners', body(pausedRunner)), 204);
    expectStatus(await t.post('/api/v4/runners/verify', body(pausedRunner)), 403);
  });
});
