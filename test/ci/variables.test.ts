// CI/CD variables of projects, groups and the instance (14.x lib/api/ci/variables.rb,
// group_variables.rb, admin/ci/variables.rb): strict shapes, the platform's validation messages,
// environment scopes and the 409 of an ambiguous key, who may call each route, and the order in
// which the variables reach a job (instance → group → project → pipeline).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../src/core/access/levels.ts';
import { InstanceVariableEntity, ScopedVariableEntity } from '../../src/modules/ci-variables/ci-variables.schemas.ts';
import { type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../access-matrix.ts';
import { createGroup } from '../factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../matchers.ts';
import { commitConfig, projectWithRepository, registerRunner, requestJob, variablePairs } from './ci-test-helpers.ts';

let t: TestApp;
let owner: TestUser;
let world: MatrixWorld;

before(async () => {
  t = await createTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '0' });
  owner = await t.user();
  world = await buildMatrixWorld(t, 'vars');
});
after(() => t.close());

describe('project variables', () => {
  let projectId: number;
  const base = () => `/api/v4/projects/${projectId}/variables`;
  before(async () => {
    projectId = (await projectWithRepository(t, owner)).id;
  });

  test('create, list, show, update and delete, with the 14.x entity', async () => {
    const created = await t.post(base(), { token: owner.token, body: { key: 'DEPLOY_TOKEN', value: 'secret-value-1', masked: true } });
    expectStatus(created, 201);
    expectEntity(created.json(), ScopedVariableEntity);
    assert.deepEqual(Object.keys(created.json()), ['variable_type', 'key', 'value', 'protected', 'masked', 'environment_scope']);
    assert.deepEqual(created.json(), { variable_type: 'env_var', key: 'DEPLOY_TOKEN', value: 'secret-value-1', protected: false, masked: true, environment_scope: '*' });
    // Stored encrypted, never in clear.
    const row = await t.deps.db.selectFrom('ci_variables').selectAll().where('key', '=', 'DEPLOY_TOKEN').executeTakeFirstOrThrow();
    assert.ok(!row.value_encrypted.includes('secret-value-1'));

    const form = await t.post(base(), { token: owner.token, form: 'key=CONFIG&value=a%3Db&variable_type=file&protected=true' });
    expectStatus(form, 201);
    assert.equal(form.json().variable_type, 'file');
    assert.equal(form.json().protected, true);

    const list = await t.get(base(), { token: owner.token });
    expectStatus(list, 200);
    expectEntities(list.json(), ScopedVariableEntity);
    assert.deepEqual(list.json().map((v: { key: string }) => v.key), ['DEPLOY_TOKEN', 'CONFIG']);
    assert.equal(list.headers['x-total'], '2');

    const shown = await t.get(`${base()}/CONFIG`, { token: owner.token });
    expectStatus(shown, 200);
    expectEntity(shown.json(), ScopedVariableEntity);
    assert.equal(shown.json().value, 'a=b');

    const updated = await t.put(`${base()}/CONFIG`, { token: owner.token, body: { value: 'changed', protected: false, key: 'IGNORED' } });
    expectStatus(updated, 200);
    expectEntity(updated.json(), ScopedVariableEntity);
    assert.deepEqual([updated.json().key, updated.json().value, updated.json().protected, updated.json().variable_type], ['CONFIG', 'changed', false, 'file']);

    expectStatus(await t.del(`${base()}/CONFIG`, { token: owner.token }), 204);
    expectError(await t.get(`${base()}/CONFIG`, { token: owner.token }), 404, { message: '404 Variable Not Found' });
    expectError(await t.put(`${base()}/CONFIG`, { token: owner.token, body: { value: 'x' } }), 404, { message: '404 Variable Not Found' });
    expectError(await t.del(`${base()}/CONFIG`, { token: owner.token }), 404, { message: '404 Variable Not Found' });
  });

  test('validation in the platform words', async () => {
    expectError(await t.post(base(), { token: owner.token, body: { key: 'BAD-KEY', value: 'x' } }), 400, { message: { key: ["can contain only letters, digits and '_'."] } });
    expectError(await t.post(base(), { token: owner.token, body: { key: 'K'.repeat(256), value: 'x' } }), 400, { message: { key: ['is too long (maximum is 255 characters)'] } });
    expectError(await t.post(base(), { token: owner.token, body: { key: 'SHORT', value: 'short', masked: true } }), 400, { message: { value: ['is invalid'] } });
    expectError(await t.post(base(), { token: owner.token, body: { key: 'LINES', value: 'first-line\nsecond-line', masked: true } }), 400, { message: { value: ['is invalid'] } });
    expectError(await t.post(base(), { token: owner.token, body: { key: 'SCOPE', value: 'x', environment_scope: 'prod!' } }), 400, {
      message: { environment_scope: ["can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces"] },
    });
    expectError(await t.post(base(), { token: owner.token, body: { value: 'x' } }), 400, { error: 'key is missing' });
    expectError(await t.post(base(), { token: owner.token, body: { key: 'TYPE', value: 'x', variable_type: 'yaml' } }), 400, { error: 'variable_type does not have a valid value' });
    expectStatus(await t.post(base(), { token: owner.token, body: { key: 'TWICE', value: 'x' } }), 201);
    expectError(await t.post(base(), { token: owner.token, body: { key: 'TWICE', value: 'y' } }), 400, { message: { key: ['(TWICE) has already been taken'] } });
    // Masking a value that cannot be masked is refused on update too, and nothing changes.
    expectError(await t.put(`${base()}/TWICE`, { token: owner.token, body: { masked: true } }), 400, { message: { value: ['is invalid'] } });
    assert.equal((await t.get(`${base()}/TWICE`, { token: owner.token })).json().masked, false);
  });

  test('environment scopes: one key in several scopes, filter[environment_scope], and the 409 without it', async () => {
    expectStatus(await t.post(base(), { token: owner.token, body: { key: 'URL', value: 'https://staging', environment_scope: 'staging' } }), 201);
    expectStatus(await t.post(base(), { token: owner.token, body: { key: 'URL', value: 'https://prod', environment_scope: 'production' } }), 201);
    expectError(await t.post(base(), { token: owner.token, body: { key: 'URL', value: 'again', environment_scope: 'production' } }), 400, { message: { key: ['(URL) has already been taken'] } });
    const multiple = { message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" };
    expectError(await t.get(`${base()}/URL`, { token: owner.token }), 409, multiple);
    expectError(await t.put(`${base()}/URL`, { token: owner.token, body: { value: 'x' } }), 409, multiple);
    expectError(await t.del(`${base()}/URL`, { token: owner.token }), 409, multiple);

    const prod = await t.get(`${base()}/URL`, { token: owner.token, query: { 'filter[environment_scope]': 'production' } });
    expectStatus(prod, 200);
    assert.equal(prod.json().value, 'https://prod');
    const moved = await t.put(`${base()}/URL`, { token: owner.token, body: { value: 'https://review', environment_scope: 'review/*', filter: { environment_scope: 'staging' } } });
    expectStatus(moved, 200);
    assert.deepEqual([moved.json().value, moved.json().environment_scope], ['https://review', 'review/*']);
    expectError(await t.get(`${base()}/URL`, { token: owner.token, query: { 'filter[environment_scope]': 'staging' } }), 404, { message: '404 Variable Not Found' });
    expectStatus(await t.del(`${base()}/URL`, { token: owner.token, query: { 'filter[environment_scope]': 'review/*' } }), 204);
    expectStatus(await t.get(`${base()}/URL`, { token: owner.token }), 200);
  });

  test('maintainers manage them; others are refused by role and visibility', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: ({ caller, project }) => t.get(`/api/v4/projects/${project.id}/variables`, { token: caller.token }),
      verify: (res) => expectEntities(res.json(), ScopedVariableEntity),
    });
    await runMatrix(world, {
      expect: expectation({ success: 201, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: ({ caller, project, role }) => t.post(`/api/v4/projects/${project.id}/variables`, { token: caller.token, body: { key: `BY_${role.toUpperCase()}`, value: 'v' } }),
    });
  });
});

describe('group variables', () => {
  test('create, list, show, update and delete; the scope is always *; keys unique per group', async () => {
    const group = await createGroup(t, { members: [[owner.user.id, ACCESS.MAINTAINER]] });
    const base = `/api/v4/groups/${group.id}/variables`;
    const created = await t.post(base, { token: owner.token, body: { key: 'GROUP_VAR', value: 'from-group', protected: 'true' } });
    expectStatus(created, 201);
    expectEntity(created.json(), ScopedVariableEntity);
    assert.deepEqual(created.json(), { variable_type: 'env_var', key: 'GROUP_VAR', value: 'from-group', protected: true, masked: false, environment_scope: '*' });
    expectError(await t.post(base, { token: owner.token, body: { key: 'GROUP_VAR', value: 'x' } }), 400, { message: { key: ['(GROUP_VAR) has already been taken'] } });
    expectEntities((await t.get(base, { token: owner.token })).json(), ScopedVariableEntity);
    expectEntity((await t.get(`${base}/GROUP_VAR`, { token: owner.token })).json(), ScopedVariableEntity);
    const updated = await t.put(`${base}/GROUP_VAR`, { token: owner.token, body: { value: 'changed', masked: true } });
    expectError(updated, 400, { message: { value: ['is invalid'] } });
    const ok = await t.put(`${base}/GROUP_VAR`, { token: owner.token, body: { value: 'changed-value', masked: true } });
    expectStatus(ok, 200);
    assert.deepEqual([ok.json().value, ok.json().masked], ['changed-value', true]);
    expectStatus(await t.del(`${base}/GROUP_VAR`, { token: owner.token }), 204);
    expectError(await t.get(`${base}/GROUP_VAR`, { token: owner.token }), 404, { message: '404 GroupVariable Not Found' });
    expectError(await t.put(`${base}/GROUP_VAR`, { token: owner.token, body: { value: 'x' } }), 404, { message: '404 GroupVariable Not Found' });
    expectError(await t.del(`${base}/GROUP_VAR`, { token: owner.token }), 404, { message: '404 GroupVariable Not Found' });
  });

  test('group maintainers and owners manage them; others are refused by role and visibility', async () => {
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'required', minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Group'),
      call: ({ caller, group }) => t.get(`/api/v4/groups/${group.id}/variables`, { token: caller.token }),
      verify: (res) => expectEntities(res.json(), ScopedVariableEntity),
    });
  });
});

describe('instance variables', () => {
  test('administrators manage them, with the entity that has no environment scope', async () => {
    const base = '/api/v4/admin/ci/variables';
    const created = await t.post(base, { token: ROOT_TOKEN, body: { key: 'INSTANCE_ONLY', value: 'everywhere', variable_type: 'file' } });
    expectStatus(created, 201);
    expectEntity(created.json(), InstanceVariableEntity);
    assert.deepEqual(Object.keys(created.json()), ['variable_type', 'key', 'value', 'protected', 'masked']);
    expectError(await t.post(base, { token: ROOT_TOKEN, body: { key: 'INSTANCE_ONLY', value: 'x' } }), 400, { message: { key: ['(INSTANCE_ONLY) has already been taken'] } });
    expectError(await t.post(base, { token: ROOT_TOKEN, body: { key: 'TOO_LONG', value: 'x'.repeat(10_001) } }), 400, {
      message: { value: ['The value of the provided variable exceeds the 10000 character limit'] },
    });
    expectEntities((await t.get(base, { token: ROOT_TOKEN })).json(), InstanceVariableEntity);
    const updated = await t.put(`${base}/INSTANCE_ONLY`, { token: ROOT_TOKEN, body: { value: 'changed', variable_type: 'env_var' } });
    expectStatus(updated, 200);
    expectEntity(updated.json(), InstanceVariableEntity);
    assert.equal(updated.json().variable_type, 'env_var');
    expectStatus(await t.del(`${base}/INSTANCE_ONLY`, { token: ROOT_TOKEN }), 204);
    expectError(await t.get(`${base}/INSTANCE_ONLY`, { token: ROOT_TOKEN }), 404, { message: '404 InstanceVariable Not Found' });
    expectError(await t.del(`${base}/INSTANCE_ONLY`, { token: ROOT_TOKEN }), 404, { message: '404 InstanceVariable Not Found' });

    expectError(await t.get(base, { token: owner.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(base, { token: owner.token, body: { key: 'NOPE', value: 'x' } }), 403, { message: '403 Forbidden' });
    expectError(await t.get(base), 401, { message: '401 Unauthorized' });
  });
});

describe('variables reaching a job', () => {
  const KEYS = ['SHARED', 'ONLY_PROTECTED', 'DEPLOY_URL', 'FROM_INSTANCE', 'FROM_GROUP'];

  test('instance, then group, then project, then pipeline variables; protected ones on protected refs only; scopes by environment', async () => {
    const group = await createGroup(t, { members: [[owner.user.id, ACCESS.OWNER]] });
    const project = await projectWithRepository(t, owner, { namespace_id: group.id });
    const runner = await registerRunner(t, project.runnersToken);
    const post = (path: string, body: Record<string, unknown>, token = owner.token) => t.post(path, { token, body }).then((r) => expectStatus(r, 201));
    await post('/api/v4/admin/ci/variables', { key: 'SHARED', value: 'instance' }, ROOT_TOKEN);
    await post('/api/v4/admin/ci/variables', { key: 'FROM_INSTANCE', value: 'i' }, ROOT_TOKEN);
    await post(`/api/v4/groups/${group.id}/variables`, { key: 'SHARED', value: 'group' });
    await post(`/api/v4/groups/${group.id}/variables`, { key: 'FROM_GROUP', value: 'g' });
    await post(`/api/v4/projects/${project.id}/variables`, { key: 'SHARED', value: 'project' });
    await post(`/api/v4/projects/${project.id}/variables`, { key: 'ONLY_PROTECTED', value: 'p', protected: true });
    await post(`/api/v4/projects/${project.id}/variables`, { key: 'DEPLOY_URL', value: 'https://prod', environment_scope: 'production' });
    await post(`/api/v4/projects/${project.id}/variables`, { key: 'DEPLOY_URL', value: 'https://review', environment_scope: 'review/*' });

    await commitConfig(t, owner, project.id, 'build:\n  script: [env]\ndeploy:\n  script: [env]\n  environment: production\n');
    // main is protected: the protected variable reaches its jobs.
    const first = await requestJob(t, runner);
    expectStatus(first, 201);
    const second = await requestJob(t, runner);
    expectStatus(second, 201);
    const byName = new Map([first.json(), second.json()].map((j) => [j.job_info.name, j]));
    assert.deepEqual(variablePairs(byName.get('build'), KEYS), [
      ['SHARED', 'instance'], ['FROM_INSTANCE', 'i'], ['SHARED', 'group'], ['FROM_GROUP', 'g'], ['SHARED', 'project'], ['ONLY_PROTECTED', 'p'],
    ]);
    assert.deepEqual(variablePairs(byName.get('deploy'), ['DEPLOY_URL']), [['DEPLOY_URL', 'https://prod']]);

    // An unprotected branch: no protected variable; a pipeline variable comes last and wins.
    await commitConfig(t, owner, project.id, 'build:\n  script: [env]\n  environment: review/feature\n', { branch: 'feature', startBranch: 'main' });
    for (const job of [first.json(), second.json()]) expectStatus(await t.put(`/api/v4/jobs/${job.id}`, { body: { token: job.token, state: 'success' } }), 200);
    await t.runJobs();
    const pipeline = await t.post(`/api/v4/projects/${project.id}/pipeline`, { token: owner.token, body: { ref: 'feature', variables: [{ key: 'SHARED', value: 'pipeline' }] } });
    expectStatus(pipeline, 201);
    const jobs: { id: number; job_info: { name: string } }[] = [];
    for (let res = await requestJob(t, runner); res.statusCode === 201; res = await requestJob(t, runner)) jobs.push(res.json());
    const apiJob = jobs.find((j) => j.job_info.name === 'build' && (j as unknown as { variables: { key: string; value: string }[] }).variables.some((v) => v.key === 'CI_PIPELINE_SOURCE' && v.value === 'api'));
    assert.ok(apiJob, 'the API pipeline job was handed out');
    assert.deepEqual(variablePairs(apiJob as never, KEYS), [
      ['SHARED', 'instance'], ['FROM_INSTANCE', 'i'], ['SHARED', 'group'], ['FROM_GROUP', 'g'], ['SHARED', 'project'], ['DEPLOY_URL', 'https://review'], ['SHARED', 'pipeline'],
    ]);
  });
});
