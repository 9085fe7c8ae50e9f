// Pipeline schedules (14.x lib/api/ci/pipeline_schedules.rb): strict entities, validation of the
// cron line and time zone, variables, ownership, who may do what, `play` through the queue, and a
// due schedule run once by the periodic task however often it runs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../src/core/access/levels.ts';
import { enqueueDueSchedules, runDueSchedulesTask } from '../../src/modules/pipeline-schedules/pipeline-schedules.jobs.ts';
import { PipelineScheduleDetailsEntity, PipelineScheduleEntity, ScheduleVariableEntity } from '../../src/modules/pipeline-schedules/pipeline-schedules.schemas.ts';
import { systemContext } from '../../src/core/context.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../matchers.ts';
import { commitConfig, projectWithRepository, registerRunner, requestJob, variablePairs } from './ci-test-helpers.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let maintainer: TestUser;
let project: { id: number; runnersToken: string };
let runner: string;
let world: MatrixWorld;
const base = () => `/api/v4/projects/${project.id}/pipeline_schedules`;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  owner = await t.user();
  developer = await t.user();
  maintainer = await t.user();
  project = await projectWithRepository(t, owner);
  await t.post(`/api/v4/projects/${project.id}/members`, { token: owner.token, body: { user_id: developer.user.id, access_level: ACCESS.DEVELOPER } });
  await t.post(`/api/v4/projects/${project.id}/members`, { token: owner.token, body: { user_id: maintainer.user.id, access_level: ACCESS.MAINTAINER } });
  runner = await registerRunner(t, project.runnersToken);
  await commitConfig(t, owner, project.id, 'nightly:\n  script: [env]\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "schedule" && $RUN_NIGHTLY == "yes"\n');
  world = await buildMatrixWorld(t, 'sched');
});
after(() => t.close());

describe('pipeline schedules', () => {
  let scheduleId: number;

  test('create with the details entity; the next run from the cron line in its time zone', async () => {
    const res = await t.post(base(), { token: owner.token, body: { description: 'nightly', ref: 'main', cron: '30 4 * * *', cron_timezone: 'Europe/Berlin' } });
    expectStatus(res, 201);
    expectEntity(res.json(), PipelineScheduleDetailsEntity);
    const s = res.json();
    assert.deepEqual(Object.keys(s), ['id', 'description', 'ref', 'cron', 'cron_timezone', 'next_run_at', 'active', 'created_at', 'updated_at', 'owner', 'last_pipeline', 'variables']);
    assert.deepEqual([s.active, s.owner.id, s.last_pipeline, s.variables], [true, owner.user.id, null, []]);
    const next = new Date(s.next_run_at);
    assert.ok(next > new Date());
    assert.equal(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }).format(next), '04:30');
    scheduleId = s.id;

    const utc = await t.post(base(), { token: developer.token, body: { description: 'hourly', ref: 'main', cron: '0 * * * *', active: false } });
    expectStatus(utc, 201);
    assert.deepEqual([utc.json().cron_timezone, utc.json().active], ['UTC', false]);
    const rails = await t.post(base(), { token: developer.token, body: { description: 'rails zone', ref: 'main', cron: '0 6 * * 1', cron_timezone: 'Berlin' } });
    expectStatus(rails, 201);
  });

  test('validation in the platform words', async () => {
    expectError(await t.post(base(), { token: owner.token, body: { description: 'x', ref: 'main', cron: 'every day' } }), 400, { message: { cron: [' is invalid syntax'] } });
    expectError(await t.post(base(), { token: owner.token, body: { description: 'x', ref: 'main', cron: '0 1 * * *', cron_timezone: 'Mars/Olympus' } }), 400, {
      message: { cron_timezone: [' is invalid syntax'] },
    });
    expectError(await t.post(base(), { token: owner.token, body: { description: '', ref: 'main', cron: '0 1 * * *' } }), 400, { message: { description: ["can't be blank"] } });
    expectError(await t.post(base(), { token: owner.token, body: { description: 'x', ref: 'main' } }), 400, { error: 'cron is missing' });
    expectError(await t.put(`${base()}/${scheduleId}`, { token: owner.token, body: { cron: '99 * * * *' } }), 400, { message: { cron: [' is invalid syntax'] } });
  });

  test('list by scope, show, update; 404 for a schedule that is not there', async () => {
    const all = await t.get(base(), { token: owner.token });
    expectStatus(all, 200);
    expectEntities(all.json(), PipelineScheduleEntity);
    assert.equal(all.json().length, 3);
    assert.deepEqual((await t.get(base(), { token: owner.token, query: { scope: 'inactive' } })).json().map((s: { description: string }) => s.description), ['hourly']);
    assert.equal((await t.get(base(), { token: owner.token, query: { scope: 'active' } })).json().length, 2);
    const updated = await t.put(`${base()}/${scheduleId}`, { token: owner.token, body: { cron: '0 2 * * *', cron_timezone: 'UTC', description: 'nightly at two' } });
    expectStatus(updated, 200);
    expectEntity(updated.json(), PipelineScheduleDetailsEntity);
    assert.equal(new Date(updated.json().next_run_at).getUTCHours(), 2);
    expectError(await t.get(`${base()}/999999`, { token: owner.token }), 404, { message: '404 Pipeline Schedule Not Found' });
  });

  test('variables: create, update, delete (202), with their errors', async () => {
    const vars = `${base()}/${scheduleId}/variables`;
    const created = await t.post(vars, { token: owner.token, body: { key: 'RUN_NIGHTLY', value: 'yes' } });
    expectStatus(created, 201);
    expectEntity(created.json(), ScheduleVariableEntity);
    assert.deepEqual(created.json(), { variable_type: 'env_var', key: 'RUN_NIGHTLY', value: 'yes' });
    expectError(await t.post(vars, { token: owner.token, body: { key: 'RUN_NIGHTLY', value: 'no' } }), 400, { message: { key: ['(RUN_NIGHTLY) has already been taken'] } });
    expectError(await t.post(vars, { token: owner.token, body: { key: 'BAD KEY', value: 'no' } }), 400, { message: { key: ["can contain only letters, digits and '_'."] } });
    expectStatus(await t.post(vars, { token: owner.token, body: { key: 'TEMP', value: '1', variable_type: 'file' } }), 201);
    const updated = await t.put(`${vars}/TEMP`, { token: owner.token, body: { value: '2' } });
    expectStatus(updated, 200);
    assert.deepEqual(updated.json(), { variable_type: 'file', key: 'TEMP', value: '2' });
    const deleted = await t.del(`${vars}/TEMP`, { token: owner.token });
    expectStatus(deleted, 202);
    expectEntity(deleted.json(), ScheduleVariableEntity);
    expectError(await t.del(`${vars}/TEMP`, { token: owner.token }), 404, { message: '404 Pipeline Schedule Variable Not Found' });
    const shown = await t.get(`${base()}/${scheduleId}`, { token: owner.token });
    assert.deepEqual(shown.json().variables, [{ variable_type: 'env_var', key: 'RUN_NIGHTLY', value: 'yes' }]);
  });

  test('a developer changes only their own schedules; maintainers change any and take them over', async () => {
    expectError(await t.put(`${base()}/${scheduleId}`, { token: developer.token, body: { description: 'mine' } }), 403, { message: '403 Forbidden' });
    expectError(await t.post(`${base()}/${scheduleId}/take_ownership`, { token: developer.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(`${base()}/${scheduleId}/variables`, { token: developer.token, body: { key: 'X', value: 'y' } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.put(`${base()}/${scheduleId}`, { token: maintainer.token, body: { description: 'nightly' } }), 200);
    const taken = await t.post(`${base()}/${scheduleId}/take_ownership`, { token: maintainer.token });
    expectStatus(taken, 201);
    expectEntity(taken.json(), PipelineScheduleDetailsEntity);
    assert.equal(taken.json().owner.id, maintainer.user.id);
  });

  test('play runs it now through the queue: a `schedule` pipeline whose job gets the schedule variables last', async () => {
    // main is protected: a developer may not play a schedule on it.
    expectError(await t.post(`${base()}/${scheduleId}/play`, { token: developer.token }), 403, { message: '403 Forbidden' });
    const played = await t.post(`${base()}/${scheduleId}/play`, { token: owner.token });
    expectStatus(played, 201);
    assert.deepEqual(played.json(), { message: '201 Created' });
    await t.runJobs();
    const details = (await t.get(`${base()}/${scheduleId}`, { token: owner.token })).json();
    expectEntity(details, PipelineScheduleDetailsEntity);
    assert.equal(details.last_pipeline.source, 'schedule');
    assert.equal(details.last_pipeline.status, 'pending');
    const pipeline = (await t.get(`/api/v4/projects/${project.id}/pipelines/${details.last_pipeline.id}`, { token: owner.token })).json();
    assert.equal(pipeline.user.id, owner.user.id, 'played as the user who asked');
    const job = await requestJob(t, runner);
    expectStatus(job, 201);
    assert.equal(job.json().job_info.name, 'nightly');
    assert.deepEqual(variablePairs(job.json(), ['CI_PIPELINE_SOURCE', 'RUN_NIGHTLY']), [['CI_PIPELINE_SOURCE', 'schedule'], ['RUN_NIGHTLY', 'yes']]);
    assert.equal(job.json().variables.at(-1).key, 'RUN_NIGHTLY');
    expectStatus(await t.put(`/api/v4/jobs/${job.json().id}`, { body: { token: job.json().token, state: 'success' } }), 200);
    await t.runJobs();
  });

  test('a due schedule runs once, as its owner, however often and on however many nodes the task runs', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    await t.deps.db.updateTable('ci_pipeline_schedules').set({ next_run_at: past }).where('id', '=', scheduleId).execute();
    const before = await t.count('ci_pipelines');
    const ctx = systemContext(t.deps);
    const taken = await Promise.all([enqueueDueSchedules(ctx), enqueueDueSchedules(ctx)]);
    assert.equal(taken[0] + taken[1], 1);
    await runDueSchedulesTask.run(t.deps);
    await t.runJobs();
    assert.equal(await t.count('ci_pipelines'), before + 1);
    const details = (await t.get(`${base()}/${scheduleId}`, { token: owner.token })).json();
    assert.ok(new Date(details.next_run_at) > new Date());
    const pipeline = (await t.get(`/api/v4/projects/${project.id}/pipelines/${details.last_pipeline.id}`, { token: owner.token })).json();
    assert.deepEqual([pipeline.source, pipeline.user.id], ['schedule', maintainer.user.id]);
    // Inactive schedules do not run.
    await t.deps.db.updateTable('ci_pipeline_schedules').set({ next_run_at: past, active: false }).where('id', '=', scheduleId).execute();
    assert.equal(await enqueueDueSchedules(ctx), 0);
  });

  test('delete (owner or maintainers); then 404', async () => {
    expectError(await t.del(`${base()}/${scheduleId}`, { token: developer.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(`${base()}/${scheduleId}`, { token: maintainer.token }), 204);
    expectError(await t.get(`${base()}/${scheduleId}`, { token: owner.token }), 404, { message: '404 Pipeline Schedule Not Found' });
  });

  test('reporters read them and developers create them; others are refused by role and visibility', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.REPORTER }),
      errors: refusals('Project'),
      call: ({ caller, project: p }) => t.get(`/api/v4/projects/${p.id}/pipeline_schedules`, { token: caller.token }),
      verify: (res) => expectEntities(res.json(), PipelineScheduleEntity),
    });
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.DEVELOPER }),
      errors: refusals('Project'),
      call: ({ caller, project: p }) => t.post(`/api/v4/projects/${p.id}/pipeline_schedules`, { token: caller.token, body: { description: 'm', ref: 'main', cron: '0 1 * * *' } }),
      verify: (res) => expectEntity(res.json(), PipelineScheduleDetailsEntity),
    });
  });
});
