// Pipeline triggers (14.x lib/api/ci/triggers.rb, Ci::PipelineTriggerService): the tokens' CRUD
// with their strict entity and who sees a token in clear, and running pipelines with a trigger
// token or a running job's CI_JOB_TOKEN, in both URL forms, with the platform's refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../src/core/access/levels.ts';
import { TriggerEntity } from '../../src/modules/ci-triggers/ci-triggers.schemas.ts';
import { PipelineEntity } from '../../src/modules/pipelines/pipelines.schemas.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../matchers.ts';
import { commitConfig, projectWithRepository, registerRunner, requestJob, variablePairs } from './ci-test-helpers.ts';

let t: TestApp;
let owner: TestUser;
let other: TestUser;
let project: { id: number; runnersToken: string };
let runner: string;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  owner = await t.user();
  other = await t.user();
  project = await projectWithRepository(t, owner);
  await t.post(`/api/v4/projects/${project.id}/members`, { token: owner.token, body: { user_id: other.user.id, access_level: ACCESS.MAINTAINER } });
  runner = await registerRunner(t, project.runnersToken);
  await commitConfig(t, owner, project.id, 'build:\n  script: [env]\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "trigger" || $CI_PIPELINE_SOURCE == "pipeline"\n');
  world = await buildMatrixWorld(t, 'trig');
});
after(() => t.close());

describe('trigger tokens', () => {
  test('create, list, show, rename and delete; the token in clear for its owner only', async () => {
    const base = `/api/v4/projects/${project.id}/triggers`;
    const created = await t.post(base, { token: owner.token, body: { description: 'deploys' } });
    expectStatus(created, 201);
    expectEntity(created.json(), TriggerEntity);
    assert.deepEqual(Object.keys(created.json()), ['id', 'token', 'description', 'created_at', 'updated_at', 'last_used', 'owner']);
    const trigger = created.json();
    assert.match(trigger.token, /^[0-9a-f]{40}$/);
    assert.equal(trigger.owner.id, owner.user.id);
    assert.equal(trigger.last_used, null);
    const row = await t.deps.db.selectFrom('ci_triggers').selectAll().where('id', '=', trigger.id).executeTakeFirstOrThrow();
    assert.ok(!row.token_encrypted.includes(trigger.token) && row.token_digest !== trigger.token);

    const list = await t.get(base, { token: owner.token });
    expectStatus(list, 200);
    expectEntities(list.json(), TriggerEntity);
    assert.equal(list.json()[0].token, trigger.token);
    const seenByOther = await t.get(`${base}/${trigger.id}`, { token: other.token });
    expectStatus(seenByOther, 200);
    expectEntity(seenByOther.json(), TriggerEntity);
    assert.equal(seenByOther.json().token, trigger.token.slice(0, 4));

    expectError(await t.put(`${base}/${trigger.id}`, { token: other.token, body: { description: 'mine' } }), 403, { message: '403 Forbidden' });
    const renamed = await t.put(`${base}/${trigger.id}`, { token: owner.token, body: { description: 'deploys to prod' } });
    expectStatus(renamed, 200);
    expectEntity(renamed.json(), TriggerEntity);
    assert.equal(renamed.json().description, 'deploys to prod');
    expectError(await t.post(base, { token: owner.token, body: {} }), 400, { error: 'description is missing' });

    expectStatus(await t.del(`${base}/${trigger.id}`, { token: other.token }), 204);
    expectError(await t.get(`${base}/${trigger.id}`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.put(`${base}/${trigger.id}`, { token: owner.token, body: { description: 'x' } }), 404, { message: '404 Not found' });
    expectError(await t.del(`${base}/${trigger.id}`, { token: owner.token }), 404, { message: '404 Not found' });
  });

  test('maintainers manage them; others are refused by role and visibility', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: ({ caller, project: p }) => t.get(`/api/v4/projects/${p.id}/triggers`, { token: caller.token }),
    });
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: ({ caller, project: p }) => t.post(`/api/v4/projects/${p.id}/triggers`, { token: caller.token, body: { description: 'matrix' } }),
      verify: (res) => expectEntity(res.json(), TriggerEntity),
    });
  });
});

describe('running pipelines with a token', () => {
  let token: string;
  let triggerId: number;
  before(async () => {
    const created = await t.post(`/api/v4/projects/${project.id}/triggers`, { token: owner.token, body: { description: 'ci' } });
    token = created.json().token;
    triggerId = created.json().id;
  });

  test('a trigger token makes a `trigger` pipeline with its variables and TRIGGER_PAYLOAD, which a runner then takes', async () => {
    const res = await t.post(`/api/v4/projects/${project.id}/trigger/pipeline`, { form: `token=${token}&ref=main&variables[TARGET]=staging&extra=1` });
    expectStatus(res, 201);
    expectEntity(res.json(), PipelineEntity);
    const pipeline = res.json();
    assert.deepEqual([pipeline.source, pipeline.ref, pipeline.status, pipeline.user.id], ['trigger', 'main', 'pending', owner.user.id]);
    const row = await t.deps.db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipeline.id).executeTakeFirstOrThrow();
    assert.equal(row.trigger_id, triggerId);

    const variables = await t.get(`/api/v4/projects/${project.id}/pipelines/${pipeline.id}/variables`, { token: owner.token });
    assert.deepEqual(variables.json(), [
      { variable_type: 'env_var', key: 'TARGET', value: 'staging' },
      { variable_type: 'file', key: 'TRIGGER_PAYLOAD', value: JSON.stringify({ ref: 'main', variables: { TARGET: 'staging' }, extra: '1', id: String(project.id) }) },
    ]);
    const trigger = await t.get(`/api/v4/projects/${project.id}/triggers/${triggerId}`, { token: owner.token });
    assert.ok(trigger.json().last_used);

    const job = await requestJob(t, runner);
    expectStatus(job, 201);
    assert.deepEqual(variablePairs(job.json(), ['CI_PIPELINE_SOURCE', 'CI_PIPELINE_TRIGGERED', 'TARGET']), [['CI_PIPELINE_TRIGGERED', 'true'], ['CI_PIPELINE_SOURCE', 'trigger'], ['TARGET', 'staging']]);
    const payload = job.json().variables.find((v: { key: string }) => v.key === 'TRIGGER_PAYLOAD');
    assert.equal(payload.file, true);

    // A running job's CI_JOB_TOKEN: source `pipeline`, its upstream recorded.
    const downstream = await t.post(`/api/v4/projects/${project.id}/ref/main/trigger/pipeline`, { query: { token: job.json().token } });
    expectStatus(downstream, 201);
    expectEntity(downstream.json(), PipelineEntity);
    assert.equal(downstream.json().source, 'pipeline');
    const linked = await t.deps.db.selectFrom('ci_pipelines').selectAll().where('id', '=', downstream.json().id).executeTakeFirstOrThrow();
    assert.deepEqual([linked.source_job_id, linked.source_pipeline_id, linked.source_project_id], [job.json().id, pipeline.id, project.id]);
    expectStatus(await t.put(`/api/v4/jobs/${job.json().id}`, { body: { token: job.json().token, state: 'success' } }), 200);
    expectError(await t.post(`/api/v4/projects/${project.id}/trigger/pipeline`, { body: { token: job.json().token, ref: 'main' } }), 401, { message: 'Job is not running' });
  });

  test('the platform refusals', async () => {
    const url = `/api/v4/projects/${project.id}/trigger/pipeline`;
    const before = await t.count('ci_pipelines');
    expectError(await t.post(url, { body: { token: 'not-a-token', ref: 'main' } }), 404, { message: '404 Not Found' });
    expectError(await t.post('/api/v4/projects/999999/trigger/pipeline', { body: { token, ref: 'main' } }), 404, { message: '404 Not Found' });
    expectError(await t.post(url, { body: { token, ref: 'nowhere' } }), 400, { message: 'Reference not found' });
    expectError(await t.post(url, { body: { token, ref: 'main', variables: { A: 1 } } }), 400, { message: 'variables needs to be a map of key-valued strings' });
    expectError(await t.post(url, { body: { token, ref: 'main' }, headers: { 'x-gitlab-event': 'Pipeline Hook' } }), 403, { message: '403 Forbidden' });
    expectError(await t.post(url, { body: { ref: 'main' } }), 400, { error: 'token is missing' });
    // Another project's token does not reveal this one.
    const elsewhere = await projectWithRepository(t, other);
    const foreign = await t.post(`/api/v4/projects/${elsewhere.id}/triggers`, { token: other.token, body: { description: 'x' } });
    expectError(await t.post(url, { body: { token: foreign.json().token, ref: 'main' } }), 404, { message: '404 Not Found' });
    assert.equal(await t.count('ci_pipelines'), before, 'nothing was saved by a refused request');
    // A configuration error keeps a failed pipeline, as the platform does for triggers.
    await commitConfig(t, owner, project.id, 'build: [', { branch: 'broken', startBranch: 'main' });
    const beforeBroken = await t.count('ci_pipelines');
    const broken = await t.post(url, { body: { token, ref: 'broken' } });
    expectStatus(broken, 201);
    assert.equal(broken.json().status, 'failed');
    assert.match(broken.json().yaml_errors, /./);
    assert.equal(await t.count('ci_pipelines'), beforeBroken + 1);
    // An owner who may no longer run pipelines: the platform's 400.
    await t.put(`/api/v4/projects/${project.id}/members/${other.user.id}`, { token: owner.token, body: { access_level: ACCESS.REPORTER } });
    const reporterTrigger = await t.deps.db.updateTable('ci_triggers').set({ owner_id: other.user.id }).where('id', '=', triggerId).execute();
    assert.ok(reporterTrigger);
    expectError(await t.post(url, { body: { token, ref: 'main' } }), 400, { message: 'Insufficient permissions to create a new pipeline' });
  });
});
