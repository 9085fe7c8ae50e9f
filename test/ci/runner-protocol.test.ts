// A pipeline from a commit to its end, driven over HTTP the way a runner drives it (notes
// gitlab-ci.md §1 and §8): registration (form-encoded, as some runners send it), verification,
// job requests, state updates, log appends with their ranges, and the jobs and pipelines API
// reading the result with their strict entities.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../matchers.ts';
import { JobEntity } from '../../src/modules/ci-jobs/ci-jobs.schemas.ts';
import { PipelineBasicEntity, PipelineEntity } from '../../src/modules/pipelines/pipelines.schemas.ts';
import { RunnerRegistrationEntity } from '../../src/modules/runners/runners.schemas.ts';

const CONFIG = `
stages: [build, test, deploy]
variables:
  GREETING: hello
build:
  stage: build
  script: ["echo $GREETING"]
  tags: [linux]
test:
  stage: test
  script: ["echo test"]
deploy:
  stage: deploy
  script: ["echo deploy"]
  when: manual
`;

let t: TestApp;
let owner: TestUser;
let projectId: number;
let runnerToken: string;

let configCommitted = false;

async function commitConfig(content: string, message = 'Add CI') {
  const action = configCommitted ? 'update' : 'create';
  configCommitted = true;
  const res = await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
    token: owner.token,
    body: { branch: 'main', commit_message: message, actions: [{ action, file_path: '.gitlab-ci.yml', content }] },
  });
  expectStatus(res, 201);
  await t.runJobs();
}

async function requestJob(token = runnerToken) {
  return t.post('/api/v4/jobs/request', { body: { token, info: { name: 'gitlab-runner', version: '16.0.0', features: { refspecs: true } } } });
}

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  owner = await t.user();
  const created = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Pipelines', initialize_with_readme: true, visibility: 'private' } });
  expectStatus(created, 201);
  projectId = created.json().id;
  await t.runJobs();
});
after(() => t.close());

describe('the runner protocol', () => {
  test('a runner registers with the project registration token, form-encoded, and verifies itself', async () => {
    const project = (await t.get(`/api/v4/projects/${projectId}`, { token: owner.token })).json();
    assert.equal(typeof project.runners_token, 'string');
    const res = await t.post('/api/v4/runners', { form: `token=${project.runners_token}&description=builder&tag_list=linux&tag_list=docker&run_untagged=True` });
    expectStatus(res, 201);
    expectEntity(res.json(), RunnerRegistrationEntity);
    runnerToken = res.json().token;
    const verify = await t.post('/api/v4/runners/verify', { body: { token: runnerToken } });
    expectStatus(verify, 200);
    assert.match(String(verify.headers['content-type']), /^application\/json/);
    assert.equal(verify.json().id, res.json().id);
    expectStatus(await t.post('/api/v4/runners', { body: { token: 'not-a-registration-token' } }), 403);
    expectStatus(await t.post('/api/v4/runners/verify', { body: { token: 'unknown' } }), 403);
  });

  test('with nothing to do, a job request answers 204 with X-GitLab-Last-Update; an unknown runner 403', async () => {
    const res = await requestJob();
    expectStatus(res, 204);
    assert.ok(res.headers['x-gitlab-last-update']);
    expectStatus(await requestJob('unknown-runner-token'), 403);
  });

  test('a pushed configuration makes a pipeline whose first stage a runner takes, then the next', async () => {
    await commitConfig(CONFIG);
    const list = await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token });
    expectStatus(list, 200);
    expectEntities(list.json(), PipelineBasicEntity);
    assert.equal(list.json().length, 1);
    const pipeline = list.json()[0];
    assert.equal(pipeline.source, 'push');
    assert.equal(pipeline.status, 'pending');

    const res = await requestJob();
    expectStatus(res, 201);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const job = res.json();
    assert.deepEqual(Object.keys(job), [
      'id', 'token', 'allow_git_fetch', 'job_info', 'git_info', 'runner_info', 'variables', 'steps', 'image', 'services', 'artifacts', 'cache', 'credentials', 'features', 'dependencies',
    ]);
    assert.equal(job.job_info.name, 'build');
    assert.equal(job.artifacts, null);
    assert.equal(job.git_info.ref, 'main');
    assert.equal(job.git_info.ref_type, 'branch');
    assert.equal(job.git_info.refspecs[0], `+refs/pipelines/${pipeline.id}:refs/pipelines/${pipeline.id}`);
    assert.match(job.git_info.repo_url, /^http:\/\/gitlab-ci-token:glcbt-[^@]+@/);
    assert.deepEqual(job.steps[0], { name: 'script', script: ['echo $GREETING'], timeout: 3600, when: 'on_success', allow_failure: false });
    const vars = new Map(job.variables.map((v: { key: string; value: string }) => [v.key, v]));
    for (const key of ['CI_JOB_TOKEN', 'CI_SERVER_URL', 'CI_REPOSITORY_URL', 'CI_PROJECT_PATH', 'CI_COMMIT_SHA', 'CI_CONFIG_PATH', 'GREETING']) assert.ok(vars.has(key), key);
    assert.deepEqual(vars.get('CI_JOB_TOKEN'), { key: 'CI_JOB_TOKEN', value: job.token, public: false, masked: true });
    assert.equal((vars.get('CI_COMMIT_SHA') as { value: string }).value, pipeline.sha);

    // The job token works while the job runs: GET /job, and nowhere it is not allowed.
    const me = await t.get('/api/v4/job', { headers: { 'job-token': job.token } });
    expectStatus(me, 200);
    expectEntity(me.json(), JobEntity);
    assert.equal(me.json().status, 'running');
    expectStatus(await t.get('/api/v4/job', { token: owner.token }), 404);

    // Logs: the start must be the stored length; the end is not checked.
    const patch = await t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': '0-5', 'content-type': 'text/plain' }, body: 'hello\n' });
    expectStatus(patch, 202);
    assert.equal(patch.headers.range, '0-6');
    const wrong = await t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': '2-3', 'content-type': 'text/plain' }, body: 'xy' });
    expectStatus(wrong, 416);
    assert.equal(wrong.headers.range, '0-6');
    const token = await t.request('PATCH', `/api/v4/jobs/${job.id}/trace`, { headers: { 'job-token': job.token, 'content-range': '6-10', 'content-type': 'text/plain' }, body: `${job.token}\n` });
    expectStatus(token, 202);

    expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'running' } }), 200);
    expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success', exit_code: 0 } }), 200);
    // A repeated final update is a no-op; another state on a finished job is refused with its status.
    expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success' } }), 200);
    const late = await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'running' } });
    expectStatus(late, 403);
    assert.equal(late.headers['job-status'], 'success');
    // The finished job's token is no credential any more.
    expectStatus(await t.get('/api/v4/job', { headers: { 'job-token': job.token } }), 401);

    const trace = await t.get(`/api/v4/projects/${projectId}/jobs/${job.id}/trace`, { token: owner.token });
    expectStatus(trace, 200);
    assert.equal(trace.body, `hello\n${'x'.repeat(job.token.length)}\n`);

    await t.runJobs();
    const next = await requestJob();
    expectStatus(next, 201);
    assert.equal(next.json().job_info.name, 'test');
    expectStatus(await t.put(`/api/v4/jobs/${next.json().id}`, { body: { token: next.json().token, state: 'failed', failure_reason: 'script_failure', exit_code: 1 } }), 200);
    await t.runJobs();

    const detail = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}`, { token: owner.token });
    expectStatus(detail, 200);
    expectEntity(detail.json(), PipelineEntity);
    assert.equal(detail.json().status, 'failed');
    assert.equal(detail.json().user.id, owner.user.id);

    const jobs = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/jobs`, { token: owner.token });
    expectStatus(jobs, 200);
    expectEntities(jobs.json(), JobEntity);
    assert.deepEqual(
      jobs.json().map((j: { name: string; status: string }) => [j.name, j.status]),
      [['deploy', 'skipped'], ['test', 'failed'], ['build', 'success']],
    );
  });

  test('a retried job runs again; a canceled pipeline tells its runner at the next update', async () => {
    const [pipeline] = (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token })).json();
    const jobs = (await t.get(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/jobs`, { token: owner.token })).json();
    const failed = jobs.find((j: { name: string }) => j.name === 'test');
    const retried = await t.post(`/api/v4/projects/${projectId}/jobs/${failed.id}/retry`, { token: owner.token });
    expectStatus(retried, 201);
    expectEntity(retried.json(), JobEntity);
    assert.equal(retried.json().status, 'pending');
    const taken = await requestJob();
    expectStatus(taken, 201);
    assert.equal(taken.json().id, retried.json().id);

    const canceled = await t.post(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/cancel`, { token: owner.token });
    expectStatus(canceled, 200);
    assert.equal(canceled.json().status, 'canceled');
    const update = await t.put(`/api/v4/jobs/${taken.json().id}`, { body: { token: taken.json().token, state: 'running' } });
    expectStatus(update, 403);
    assert.equal(update.headers['job-status'], 'canceled');
    const all = await t.get(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/jobs`, { token: owner.token, query: { include_retried: 'true' } });
    assert.equal(all.json().length, 4);

    // Retrying the pipeline clones its canceled and failed jobs and runs them again.
    const again = await t.post(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/retry`, { token: owner.token });
    expectStatus(again, 201);
    expectEntity(again.json(), PipelineEntity);
    // Its successful build keeps the pipeline running (the composite of success and pending).
    assert.equal(again.json().status, 'running');
    const reporter = await t.user();
    await t.post(`/api/v4/projects/${projectId}/members`, { token: owner.token, body: { user_id: reporter.user.id, access_level: 20 } });
    expectStatus(await t.get(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}`, { token: reporter.token }), 200);
    expectStatus(await t.post(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/retry`, { token: reporter.token }), 403);
    expectStatus(await t.del(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}`, { token: reporter.token }), 403);
    const stranger = await t.user();
    expectStatus(await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: stranger.token }), 404);
    await t.post(`/api/v4/projects/${projectId}/pipelines/${pipeline.id}/cancel`, { token: owner.token });
  });

  test('two runners asking at once never get the same job', async () => {
    const project = (await t.get(`/api/v4/projects/${projectId}`, { token: owner.token })).json();
    const other = (await t.post('/api/v4/runners', { body: { token: project.runners_token, tag_list: 'linux' } })).json().token;
    await commitConfig('many:\n  script: [x]\n  parallel: 5\n', 'Five jobs');
    const answers = await Promise.all([runnerToken, other, runnerToken, other, runnerToken, other, runnerToken, other].map((token) => requestJob(token)));
    const ids = answers.filter((a) => a.statusCode === 201 && a.json().job_info.name.startsWith('many')).map((a) => a.json().id);
    assert.equal(ids.length, 5);
    assert.equal(new Set(ids).size, 5);
  });

  test('a configuration error on a push is a failed pipeline with its yaml_errors; the API refuses it with 400 and saves nothing', async () => {
    await commitConfig('build:\n  stage: nowhere\n  script: [x]\n', 'Broken');
    const [latest] = (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token })).json();
    const detail = (await t.get(`/api/v4/projects/${projectId}/pipelines/${latest.id}`, { token: owner.token })).json();
    assert.equal(detail.status, 'failed');
    assert.match(detail.yaml_errors, /chosen stage does not exist/);
    const before = await t.count('ci_pipelines');
    const res = await t.post(`/api/v4/projects/${projectId}/pipeline`, { token: owner.token, body: { ref: 'main' } });
    expectStatus(res, 400);
    assert.match(res.json().message.base[0], /chosen stage does not exist/);
    assert.equal(await t.count('ci_pipelines'), before);
    const missing = await t.post(`/api/v4/projects/${projectId}/pipeline`, { token: owner.token, body: { ref: 'no-such-ref' } });
    expectStatus(missing, 400);
    assert.deepEqual(missing.json(), { message: { base: ['Reference not found'] } });
  });

  test('[ci skip] saves a skipped pipeline without jobs', async () => {
    await t.post(`/api/v4/projects/${projectId}/repository/commits`, {
      token: owner.token,
      body: { branch: 'main', commit_message: 'Quiet [ci skip]', actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content: CONFIG }] },
    });
    await t.runJobs();
    const [latest] = (await t.get(`/api/v4/projects/${projectId}/pipelines`, { token: owner.token })).json();
    assert.equal(latest.status, 'skipped');
  });
});
