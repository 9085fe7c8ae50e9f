// Expired artifacts (notes gitlab-ci.md §1.7; the platform's ExpireBuildArtifactsWorker,
// Ci::JobArtifacts::DestroyAllExpiredService, Ci::UnlockArtifactsService): the periodic task
// removes artifacts past their `expire_at`, rows then files, in batches, except the kept ones and
// those of a locked pipeline. A project that keeps its latest artifacts (the default, and the
// instance's) makes locked pipelines; a newer successful pipeline of the same ref with an archive
// unlocks the older ones. Uploads without `expire_in` expire after the instance's
// default_artifacts_expire_in (30 days).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { systemContext } from '../../src/core/context.ts';
import { runDueTasks } from '../../src/jobs/scheduler.ts';
import { periodicTasks } from '../../src/jobs/tasks.ts';
import { EXPIRY_BATCH, removeExpiredArtifacts, removeExpiredCiArtifactsTask } from '../../src/modules/ci-artifacts/artifacts-expiry.jobs.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { newJobArtifactPath } from '../../src/storage/artifact-paths.ts';
import { artifactsStorage } from '../../src/storage/file-storage.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';
import { RUNNER_FEATURES, uploadArtifact, zip } from './ci-test-helpers.ts';
import { type CiProject, ciProject } from './fixtures.ts';

const HOUR = 3600 * 1000;
const CONFIG = 'build:\n  script: [make]\n  artifacts:\n    paths: [out/]\n';

let t: TestApp;
/** How far the application's clock runs ahead of the real one. */
let ahead = 0;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' }, { now: () => new Date(Date.now() + ahead) });
});
after(() => t.close());

const storageDir = () => path.join(t.deps.config.dataDir, 'artifacts');
const later = (ms: number) => ({ ...t.deps, now: () => new Date(Date.now() + ms) });

async function artifactsOf(jobId: number) {
  return t.deps.db.selectFrom('ci_job_artifacts').select(['file_type', 'file_path']).where('build_id', '=', jobId).orderBy('id').execute();
}

/** Commits the configuration (its content made unique), runs `build`, uploads an archive expiring in `expireIn` (or the default), and finishes it. */
async function pipelineWithArchive(ci: CiProject, runner: string, expireIn: string | null, state: 'success' | 'failed' = 'success', message = `run ${Math.random()}`) {
  await ci.commitConfig(`${CONFIG}# ${message}\n`, message);
  const job = await ci.takeJob(runner, { features: RUNNER_FEATURES });
  assert.ok(job);
  const query: Record<string, string> = expireIn === null ? {} : { expire_in: expireIn };
  expectStatus(await uploadArtifact(t, job.id, job.token, { filename: 'default.zip', content: await zip({ 'out/a.txt': 'a' }) }, query), 201);
  await ci.finishJob(job, state);
  return job;
}

describe('the expiry task', () => {
  test('removes expired artifacts of an unlocked pipeline, rows then files, and keeps kept and unexpired ones, and logs', async () => {
    const ci = await ciProject(t);
    expectStatus(await t.put(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token, body: { keep_latest_artifact: false } }), 200);
    const runner = await ci.registerRunner();
    const expiring = await pipelineWithArchive(ci, runner, '1 hour');
    // A log uploaded as a trace artifact with an expiry: logs never expire.
    await ci.commitConfig(`${CONFIG}# log\n`, 'log');
    const logged = await ci.takeJob(runner, { features: RUNNER_FEATURES });
    assert.ok(logged);
    expectStatus(await uploadArtifact(t, logged.id, logged.token, { filename: 'job.log', content: Buffer.from('log\n') }, { artifact_type: 'trace', artifact_format: 'raw', expire_in: '1 hour' }), 201);
    await ci.finishJob(logged, 'success');
    const kept = await pipelineWithArchive(ci, runner, '1 hour');
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${kept.id}/artifacts/keep`, { token: ci.owner.token }), 200);
    const lasting = await pipelineWithArchive(ci, runner, '1 week');
    const files = (await artifactsOf(expiring.id)).map((a) => path.join(storageDir(), a.file_path));
    assert.deepEqual((await artifactsOf(expiring.id)).map((a) => a.file_type), ['archive', 'metadata']);
    assert.ok(files.every((f) => fs.existsSync(f)));

    // Nothing has expired yet.
    await removeExpiredArtifacts(systemContext(t.deps));
    assert.equal((await artifactsOf(expiring.id)).length, 2);

    assert.ok((await removeExpiredArtifacts(systemContext(later(2 * HOUR)))) >= 2);
    assert.deepEqual(await artifactsOf(expiring.id), []);
    assert.equal((await artifactsOf(kept.id)).length, 2);
    assert.equal((await artifactsOf(lasting.id)).length, 2);
    assert.deepEqual((await artifactsOf(logged.id)).map((a) => a.file_type), ['trace']);
    // The files go through the job queue, after the rows.
    assert.ok(files.every((f) => fs.existsSync(f)));
    await t.runJobs();
    assert.ok(files.every((f) => !fs.existsSync(f)));

    expectError(await t.get(`/api/v4/projects/${ci.projectId}/jobs/${expiring.id}/artifacts`, { token: ci.owner.token }), 404, { message: '404 Not Found' });
    const shown = await t.get(`/api/v4/projects/${ci.projectId}/jobs/${expiring.id}`, { token: ci.owner.token });
    expectEntity(shown.json(), JobEntity);
    assert.deepEqual(shown.json().artifacts, []);
    assert.equal(shown.json().artifacts_file, undefined);
  });

  test("keeps a locked pipeline's expired artifacts until a newer successful pipeline of its ref, with an archive, unlocks it", async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    const first = await pipelineWithArchive(ci, runner, '1 hour');
    const [firstPipeline] = await ci.pipelines();
    const locked = async (id: number) => (await t.deps.db.selectFrom('ci_pipelines').select('locked').where('id', '=', id).executeTakeFirstOrThrow()).locked;
    assert.equal(await locked(firstPipeline.id), true);

    await removeExpiredArtifacts(systemContext(later(2 * HOUR)));
    assert.equal((await artifactsOf(first.id)).length, 2);

    // A newer failed pipeline, or a successful one without an archive, or one of another ref, unlocks nothing.
    await pipelineWithArchive(ci, runner, '1 hour', 'failed');
    await ci.commitConfig('build:\n  script: [make]\n', 'no artifacts');
    const bare = await ci.takeJob(runner);
    assert.ok(bare);
    await ci.finishJob(bare, 'success');
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/repository/branches`, { token: ci.owner.token, query: { branch: 'other', ref: 'main' } }), 201);
    await t.runJobs();
    const other = await ci.takeJob(runner, { features: RUNNER_FEATURES });
    assert.ok(other);
    expectStatus(await uploadArtifact(t, other.id, other.token, { filename: 'default.zip', content: await zip({ 'out/b.txt': 'b' }) }, { expire_in: '1 hour' }), 201);
    await ci.finishJob(other, 'success');
    await removeExpiredArtifacts(systemContext(later(2 * HOUR)));
    assert.equal(await locked(firstPipeline.id), true);
    assert.equal((await artifactsOf(first.id)).length, 2);

    const second = await pipelineWithArchive(ci, runner, '1 hour');
    const [secondPipeline] = await ci.pipelines();
    await removeExpiredArtifacts(systemContext(later(2 * HOUR)));
    assert.equal(await locked(firstPipeline.id), false);
    assert.deepEqual(await artifactsOf(first.id), []);
    // The newest keeps its artifacts, expired or not.
    assert.equal(await locked(secondPipeline.id), true);
    await removeExpiredArtifacts(systemContext(later(5 * HOUR)));
    assert.equal((await artifactsOf(second.id)).length, 2);
  });

  test('a project that does not keep its latest artifacts, or an instance that does not, makes unlocked pipelines', async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    const settings = async (value: boolean) => expectStatus(await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { keep_latest_artifact: value } }), 200);
    await settings(false);
    try {
      const job = await pipelineWithArchive(ci, runner, '1 hour');
      const [pipeline] = await ci.pipelines();
      const row = await t.deps.db.selectFrom('ci_pipelines').select('locked').where('id', '=', pipeline.id).executeTakeFirstOrThrow();
      assert.equal(row.locked, false);
      await removeExpiredArtifacts(systemContext(later(2 * HOUR)));
      assert.deepEqual(await artifactsOf(job.id), []);
    } finally {
      await settings(true);
    }
  });

  test('works in batches, and two runs at once remove each file once', async () => {
    const ci = await ciProject(t);
    expectStatus(await t.put(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token, body: { keep_latest_artifact: false } }), 200);
    const runner = await ci.registerRunner();
    const job = await pipelineWithArchive(ci, runner, '1 hour');
    const template = await t.deps.db.selectFrom('ci_builds').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
    const storage = artifactsStorage(t.deps.config);
    const count = EXPIRY_BATCH * 2 + 17;
    const { id: _id, ...columns } = template;
    const builds = await t.deps.db
      .insertInto('ci_builds')
      .values(Array.from({ length: count }, (_, i) => ({ ...columns, name: `copy ${i}` })))
      .returning(['id', 'project_id', 'pipeline_id'])
      .execute();
    const past = new Date(Date.now() - HOUR).toISOString();
    const rows = [];
    for (const build of builds) {
      const filePath = newJobArtifactPath(build, 'archive');
      await storage.write(filePath, Buffer.from('x'));
      rows.push({ build_id: build.id, project_id: build.project_id, file_type: 'archive', file_format: 'zip', filename: 'a.zip', size: 1, sha256: 'x', file_path: filePath, expire_at: past, created_at: past });
    }
    await t.deps.db.insertInto('ci_job_artifacts').values(rows).execute();
    await t.runJobs();

    const removed = await Promise.all([removeExpiredArtifacts(systemContext(t.deps)), removeExpiredArtifacts(systemContext(t.deps))]);
    assert.equal(removed[0] + removed[1], count);
    const left = await t.deps.db.selectFrom('ci_job_artifacts').select('id').where('build_id', 'in', builds.map((b) => b.id)).execute();
    assert.deepEqual(left, []);
    const queued = await t.deps.db.selectFrom('background_jobs').select('payload').where('kind', '=', 'storage.files.remove').where('state', '=', 'queued').execute();
    const paths = queued.flatMap((q) => (JSON.parse(q.payload) as { paths: string[] }).paths);
    assert.equal(paths.length, count);
    assert.equal(new Set(paths).size, count);
    await t.runJobs();
    assert.ok(rows.every((r) => !fs.existsSync(path.join(storageDir(), r.file_path))));
  });

  test('is a periodic task, run every seven minutes once across the nodes', async () => {
    assert.ok(periodicTasks.includes(removeExpiredCiArtifactsTask));
    assert.equal(removeExpiredCiArtifactsTask.everySeconds, 7 * 60);
    const ci = await ciProject(t);
    expectStatus(await t.put(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token, body: { keep_latest_artifact: false } }), 200);
    const runner = await ci.registerRunner();
    const job = await pipelineWithArchive(ci, runner, '1 hour');
    const deps = later(2 * HOUR);
    assert.deepEqual(await runDueTasks(deps, [removeExpiredCiArtifactsTask]), ['remove_expired_ci_artifacts']);
    assert.deepEqual(await artifactsOf(job.id), []);
    assert.deepEqual(await runDueTasks(deps, [removeExpiredCiArtifactsTask]), []);
  });
});

describe('default_artifacts_expire_in', () => {
  test('sets the expiry of uploads without expire_in: 30 days, or what the administrator sets; 0 for never', async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    const expiresIn = async (job: { id: number }) => {
      const shown = (await t.get(`/api/v4/projects/${ci.projectId}/jobs/${job.id}`, { token: ci.owner.token })).json();
      return shown.artifacts_expire_at === null ? null : Date.parse(shown.artifacts_expire_at) - Date.now();
    };
    const near = (ms: number | null, expected: number) => assert.ok(ms !== null && Math.abs(ms - expected) < 60_000, `expires in ${ms} ms`);
    near(await expiresIn(await pipelineWithArchive(ci, runner, null)), 30 * 24 * HOUR);

    const set = async (value: string) => {
      const res = await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { default_artifacts_expire_in: value } });
      expectStatus(res, 200);
      assert.equal(res.json().default_artifacts_expire_in, value);
    };
    try {
      await set('2 days');
      near(await expiresIn(await pipelineWithArchive(ci, runner, null)), 48 * HOUR);
      // The runner's own expire_in wins.
      near(await expiresIn(await pipelineWithArchive(ci, runner, '3 hours')), 3 * HOUR);
      await set('0');
      assert.equal(await expiresIn(await pipelineWithArchive(ci, runner, null)), null);
    } finally {
      await set('30 days');
    }
  });
});
