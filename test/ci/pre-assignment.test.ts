// The checks a job passes before a runner gets it (notes gitlab-ci.md §1.3, §8.13; the platform's
// RegisterJobService pre_assign_runner_checks): a dependency whose artifacts expired (unless its
// pipeline keeps them) or which was erased fails the job with missing_dependency_failure; a job
// that needs a feature the runner did not advertise fails with runner_unsupported. The job records
// the runner, the pipeline is processed again, and the runner gets the next job in the same request.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { type TestApp, createTestApp } from '../harness.ts';
import { expectEntity, expectStatus } from '../matchers.ts';
import { RUNNER_FEATURES, uploadArtifact, zip } from './ci-test-helpers.ts';
import { type CiProject, ciProject } from './fixtures.ts';

const WITH_DEPENDENCY = `
stages: [build, test]
build:
  stage: build
  script: [make]
  artifacts:
    paths: [out/]
    expire_in: 1 hour
check:
  stage: test
  script: [check]
  dependencies: [build]
alone:
  stage: test
  script: [lint]
  dependencies: []
`;

let t: TestApp;
/** How far the application's clock runs ahead of the real one. */
let ahead = 0;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' }, { now: () => new Date(Date.now() + ahead) });
});
after(() => t.close());

async function jobRow(id: number) {
  return t.deps.db.selectFrom('ci_builds').select(['name', 'status', 'failure_reason', 'runner_id', 'finished_at']).where('id', '=', id).executeTakeFirstOrThrow();
}

async function jobId(pipelineId: number, name: string): Promise<number> {
  const row = await t.deps.db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipelineId).where('name', '=', name).where('retried', '=', false).executeTakeFirstOrThrow();
  return row.id;
}

/** Runs `build` with an archive that expires in an hour, to success. */
async function buildWithArchive(ci: CiProject, runner: string) {
  const build = await ci.takeJob(runner, { features: RUNNER_FEATURES });
  assert.equal(build?.job_info.name, 'build');
  expectStatus(await uploadArtifact(t, build.id, build.token, { filename: 'default.zip', content: await zip({ 'out/a.txt': 'a' }) }, { expire_in: '1 hour' }), 201);
  await ci.finishJob(build, 'success');
  return build;
}

describe('missing_dependency_failure', () => {
  test("a dependency's expired artifacts fail the job; the runner gets the next one; the pipeline goes on", async () => {
    const ci = await ciProject(t);
    expectStatus(await t.put(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token, body: { keep_latest_artifact: false } }), 200);
    const runner = await ci.registerRunner();
    await ci.commitConfig(WITH_DEPENDENCY);
    await buildWithArchive(ci, runner);
    const [pipeline] = await ci.pipelines();
    const checkId = await jobId(pipeline.id, 'check');

    ahead = 2 * 3600 * 1000;
    try {
      const next = await ci.takeJob(runner, { features: RUNNER_FEATURES });
      assert.equal(next?.job_info.name, 'alone');
      const runnerId = (await t.deps.db.selectFrom('ci_runners').select('id').orderBy('id', 'desc').executeTakeFirstOrThrow()).id;
      const dropped = await jobRow(checkId);
      assert.deepEqual({ ...dropped, finished_at: typeof dropped.finished_at }, { name: 'check', status: 'failed', failure_reason: 'missing_dependency_failure', runner_id: runnerId, finished_at: 'string' });
      const shown = await t.get(`/api/v4/projects/${ci.projectId}/jobs/${checkId}`, { token: ci.owner.token });
      expectStatus(shown, 200);
      expectEntity(shown.json(), JobEntity);
      assert.equal(shown.json().status, 'failed');
      assert.equal(shown.json().runner.id, runnerId);
      await ci.finishJob(next, 'success');
      assert.equal((await ci.pipelines())[0].status, 'failed');
    } finally {
      ahead = 0;
    }
  });

  test('a locked pipeline keeps its expired artifacts, so its jobs still run and download them', async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    await ci.commitConfig(WITH_DEPENDENCY);
    const build = await buildWithArchive(ci, runner);
    ahead = 2 * 3600 * 1000;
    try {
      const jobs = [await ci.takeJob(runner), await ci.takeJob(runner)];
      assert.deepEqual(jobs.map((j) => j?.job_info.name).sort(), ['alone', 'check']);
      const check = jobs.find((j) => j?.job_info.name === 'check');
      assert.ok(check);
      const [dependency] = check.dependencies as { id: number; artifacts_file?: unknown }[];
      assert.equal(dependency.id, build.id);
      assert.ok(dependency.artifacts_file);
      const download = await t.get(`/api/v4/jobs/${build.id}/artifacts`, { headers: { 'job-token': check.token } });
      expectStatus(download, 200);
    } finally {
      ahead = 0;
    }
  });

  test('an erased dependency fails the job; a job with `dependencies: []` or without artifacts upstream runs', async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    await ci.commitConfig(WITH_DEPENDENCY);
    const build = await buildWithArchive(ci, runner);
    const [pipeline] = await ci.pipelines();
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${build.id}/erase`, { token: ci.owner.token }), 201);
    assert.equal((await ci.takeJob(runner))?.job_info.name, 'alone');
    assert.equal((await jobRow(await jobId(pipeline.id, 'check'))).failure_reason, 'missing_dependency_failure');

    // A dependency that made no artifacts has nothing to expire.
    await ci.commitConfig('stages: [a, b]\nfirst:\n  stage: a\n  script: [x]\nsecond:\n  stage: b\n  script: [y]\n', 'no artifacts');
    const first = await ci.takeJob(runner);
    assert.ok(first);
    await ci.finishJob(first, 'success');
    ahead = 40 * 86_400_000;
    try {
      assert.equal((await ci.takeJob(runner))?.job_info.name, 'second');
    } finally {
      ahead = 0;
    }
  });

  test('the failure is not retried, whatever `retry:` says', async () => {
    const ci = await ciProject(t);
    expectStatus(await t.put(`/api/v4/projects/${ci.projectId}`, { token: ci.owner.token, body: { keep_latest_artifact: false } }), 200);
    const runner = await ci.registerRunner();
    await ci.commitConfig(WITH_DEPENDENCY.replace('  dependencies: [build]\n', '  dependencies: [build]\n  retry: 2\n'));
    await buildWithArchive(ci, runner);
    ahead = 2 * 3600 * 1000;
    try {
      assert.equal((await ci.takeJob(runner))?.job_info.name, 'alone');
      assert.equal(await ci.takeJob(runner), null);
      const [pipeline] = await ci.pipelines();
      assert.deepEqual((await ci.jobStates(pipeline.id, true)).filter(([name]) => name === 'check'), [['check', 'failed']]);
    } finally {
      ahead = 0;
    }
  });
});

describe('runner_unsupported', () => {
  const NEEDS = `
reports:
  script: [x]
  artifacts:
    reports:
      junit: report.xml
exclude:
  script: [x]
  artifacts:
    paths: [out/]
    exclude: [out/*.tmp]
exit-codes:
  script: [x]
  allow_failure:
    exit_codes: [3]
release:
  script: [x]
  release:
    tag_name: v1
    description: first
plain:
  script: [x]
`;
  const FEATURE_OF: Record<string, string> = {
    reports: 'upload_multiple_artifacts',
    exclude: 'artifacts_exclude',
    'exit-codes': 'return_exit_code',
    release: 'multi_build_steps',
  };

  test('a runner advertising nothing gets only the job that needs nothing; the others fail, and their pipeline with them', async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    await ci.commitConfig(NEEDS);
    const taken = await ci.takeJob(runner, { name: 'old-runner', features: {} });
    assert.equal(taken?.job_info.name, 'plain');
    assert.equal(await ci.takeJob(runner), null);
    await ci.finishJob(taken, 'success');
    const [pipeline] = await ci.pipelines();
    const rows = await t.deps.db.selectFrom('ci_builds').select(['name', 'status', 'failure_reason']).where('pipeline_id', '=', pipeline.id).orderBy('id').execute();
    assert.deepEqual(rows, [
      { name: 'reports', status: 'failed', failure_reason: 'runner_unsupported' },
      { name: 'exclude', status: 'failed', failure_reason: 'runner_unsupported' },
      { name: 'exit-codes', status: 'failed', failure_reason: 'runner_unsupported' },
      { name: 'release', status: 'failed', failure_reason: 'runner_unsupported' },
      { name: 'plain', status: 'success', failure_reason: null },
    ]);
    assert.equal(pipeline.status, 'failed');
  });

  test('each job needs its own feature and no other (false counts as absent); a current runner takes them all', async () => {
    for (const [name, feature] of Object.entries(FEATURE_OF)) {
      const ci = await ciProject(t);
      const runner = await ci.registerRunner();
      await ci.commitConfig(NEEDS);
      const only = await ci.takeJob(runner, { features: { [feature]: true, refspecs: false } });
      assert.equal(only?.job_info.name, name, feature);
      const [pipeline] = await ci.pipelines();
      const failed = await t.deps.db.selectFrom('ci_builds').select('name').where('pipeline_id', '=', pipeline.id).where('failure_reason', '=', 'runner_unsupported').execute();
      // Jobs before it in the queue that need another feature failed on the way.
      assert.ok(!failed.some((f) => f.name === name || f.name === 'plain'), feature);
    }
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    await ci.commitConfig(NEEDS);
    const names = [];
    for (let job = await ci.takeJob(runner, { features: RUNNER_FEATURES }); job; job = await ci.takeJob(runner, { features: RUNNER_FEATURES })) names.push(job.job_info.name);
    assert.deepEqual(names, ['reports', 'exclude', 'exit-codes', 'release', 'plain']);
  });

  test('a dotenv report too needs upload_multiple_artifacts; the runner that has it uploads it', async () => {
    const ci = await ciProject(t);
    const runner = await ci.registerRunner();
    await ci.commitConfig('env:\n  script: [x]\n  artifacts:\n    reports:\n      dotenv: build.env\n');
    assert.equal(await ci.takeJob(runner, { features: { upload_raw_artifacts: true } }), null);
    await ci.commitConfig('env:\n  script: [y]\n  artifacts:\n    reports:\n      dotenv: build.env\n', 'again');
    const job = await ci.takeJob(runner, { features: { upload_multiple_artifacts: true } });
    assert.ok(job);
    expectStatus(await uploadArtifact(t, job.id, job.token, { filename: 'build.env.gz', content: gzipSync('A=1\n') }, { artifact_type: 'dotenv', artifact_format: 'gzip' }), 201);
  });
});
