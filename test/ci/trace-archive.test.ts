// A finished job's log moves from the database into the artifacts storage: read the same before
// and after, listed once as the job's `trace` artifact, kept by DELETE .../artifacts, removed by
// the erase; a running job's log stays where it is.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { systemContext } from '../../src/core/context.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { archiveFinishedTraces } from '../../src/modules/ci-jobs/trace-archive.ts';
import { artifactsStorage } from '../../src/storage/file-storage.ts';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntity, expectStatus } from '../matchers.ts';
import { ciProject } from './fixtures.ts';

let t: TestApp;
let offsetMs = 0;
before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' }, { now: () => new Date(Date.now() + offsetMs) });
});
after(() => t.close());

const append = (job: { id: number; token: string }, start: number, text: string) =>
  t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': `${start}-${start + Buffer.byteLength(text) - 1}`, 'content-type': 'text/plain' }, body: text });

test("a finished job's log is archived after a minute; the API reads the same log; DELETE artifacts keeps it, the erase removes it", async () => {
  const ci = await ciProject(t);
  const runner = await ci.registerRunner();
  await ci.commitConfig('one:\n  script: [x]\ntwo:\n  script: [y]\n');
  const first = (await ci.takeJob(runner)) as { id: number; token: string };
  const second = (await ci.takeJob(runner)) as { id: number; token: string };
  const log = `${'a long line of a log, '.repeat(10_000)}\nünïcode end\n`;
  expectStatus(await append(first, 0, log), 202);
  expectStatus(await append(second, 0, 'still running\n'), 202);
  await ci.finishJob(first, 'success');
  const ctx = systemContext(t.deps);

  // Within the minute: nothing moves.
  assert.equal(await archiveFinishedTraces(ctx), 0);
  offsetMs = 2 * 60 * 1000;
  try {
    assert.equal(await archiveFinishedTraces(ctx), 1);
    assert.equal(await archiveFinishedTraces(ctx), 0);
  } finally {
    offsetMs = 0;
  }
  const chunks = async (id: number) => Number((await t.deps.db.selectFrom('ci_build_trace_chunks').select((eb) => eb.fn.countAll<number>().as('n')).where('build_id', '=', id).executeTakeFirstOrThrow()).n);
  assert.equal(await chunks(first.id), 0);
  assert.ok((await chunks(second.id)) > 0, 'a running job keeps its chunks');

  const trace = await t.get(`/api/v4/projects/${ci.projectId}/jobs/${first.id}/trace`, { token: ci.owner.token });
  expectStatus(trace, 200);
  assert.equal(trace.body, log);
  const shown = await t.get(`/api/v4/projects/${ci.projectId}/jobs/${first.id}`, { token: ci.owner.token });
  expectEntity(shown.json(), JobEntity);
  assert.deepEqual(shown.json().artifacts, [{ file_type: 'trace', size: Buffer.byteLength(log), filename: 'job.log', file_format: null }]);
  const row = await t.deps.db.selectFrom('ci_job_artifacts').selectAll().where('build_id', '=', first.id).executeTakeFirstOrThrow();
  const storage = artifactsStorage(t.deps.config);
  assert.equal((await storage.readAll(row.file_path)).toString('utf8'), log);

  expectStatus(await t.del(`/api/v4/projects/${ci.projectId}/jobs/${first.id}/artifacts`, { token: ci.owner.token }), 204);
  assert.equal((await t.get(`/api/v4/projects/${ci.projectId}/jobs/${first.id}/trace`, { token: ci.owner.token })).body, log);

  expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${first.id}/erase`, { token: ci.owner.token }), 201);
  assert.equal((await t.get(`/api/v4/projects/${ci.projectId}/jobs/${first.id}/trace`, { token: ci.owner.token })).body, '');
  assert.equal(await t.count('ci_job_artifacts'), 0);
  await t.runJobs();
  assert.equal(await storage.exists(row.file_path), false);
});
