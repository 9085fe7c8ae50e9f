// Who may call each error tracking route, on private, internal and public projects: settings and
// client keys are for Maintainers and up (a caller who sees the project without that role gets
// 403, one who does not see it 404, an anonymous caller 401); the errors for Reporters and up,
// anonymous callers reading a public project refused with 403. The collector takes no user.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { systemContext } from '../../core/context.ts';
import { ClientKeyEntity, ErrorDetailEntity, ErrorEntity, SettingsEntity } from './error-tracking.schemas.ts';
import { collectEvent } from './error-tracking.service.ts';

let t: TestApp;
let world: MatrixWorld;
const errorOf = new Map<number, number>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    const res = await t.put(`/api/v4/projects/${project.id}/error_tracking/settings`, { token: ROOT_TOKEN, body: { active: true, integrated: true } });
    assert.equal(res.statusCode, 200, res.body);
    const error = await collectEvent(systemContext(t.deps), project, { name: 'Error', description: 'boom', actor: 'f(m)', platform: 'node', occurredAt: new Date().toISOString(), environment: null, level: 'error' }, '{}');
    errorOf.set(project.id, error.id);
  }
});
after(() => t.close());

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/error_tracking`;
const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });
const reporters = expectation({ auth: 'optional', success: 200, minLevel: ACCESS.REPORTER });

test('GET error_tracking/settings', async () => {
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(`${base(c)}/settings`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), SettingsEntity) });
});

test('PATCH error_tracking/settings', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.request('PATCH', `${base(c)}/settings`, { token: c.caller.token, body: { active: true } }),
    verify: (res) => expectEntity(res.json(), SettingsEntity),
  });
});

test('PUT error_tracking/settings', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/settings`, { token: c.caller.token, body: { active: true, integrated: true } }),
    verify: (res) => expectEntity(res.json(), SettingsEntity),
  });
});

test('GET error_tracking/client_keys', async () => {
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(`${base(c)}/client_keys`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), ClientKeyEntity) });
});

test('POST error_tracking/client_keys', async () => {
  await runMatrix(world, { expect: maintainers(201), errors: refusals('Project'), call: (c) => t.post(`${base(c)}/client_keys`, { token: c.caller.token }), verify: (res) => expectEntity(res.json(), ClientKeyEntity) });
});

test('DELETE error_tracking/client_keys/:key_id', async () => {
  await runMatrix(world, {
    expect: maintainers(204),
    errors: refusals('Project'),
    call: async (c) => {
      const key = await t.post(`${base(c)}/client_keys`, { token: ROOT_TOKEN });
      return t.del(`${base(c)}/client_keys/${key.json().id}`, { token: c.caller.token });
    },
  });
});

test('GET error_tracking/errors', async () => {
  await runMatrix(world, { expect: reporters, errors: refusals('Project'), call: (c) => t.get(`${base(c)}/errors`, { token: c.caller.token }), verify: (res) => expectEntities(res.json(), ErrorEntity) });
});

test('GET error_tracking/errors/:error_id', async () => {
  await runMatrix(world, {
    expect: reporters,
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/errors/${errorOf.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), ErrorDetailEntity),
  });
});

test('PUT error_tracking/errors/:error_id (Reporters and up change the status)', async () => {
  await runMatrix(world, {
    expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.REPORTER }),
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/errors/${errorOf.get(c.project.id)}`, { token: c.caller.token, body: { status: 'resolved' } }),
    verify: (res) => expectEntity(res.json(), ErrorEntity),
  });
});

test("PUT <full path>/-/error_tracking/:issue_id.json (the platform's web route: 404 to whoever may not change it)", async () => {
  const web = expectation({ auth: 'optional', success: 200, minLevel: ACCESS.REPORTER, denied: 404 });
  await runMatrix(world, {
    expect: (role, visibility) => (role === 'anonymous' ? 404 : web(role, visibility)),
    errors: { 404: { message: '404 Not Found' } },
    call: (c) => t.put(`/${c.project.full_path}/-/error_tracking/${errorOf.get(c.project.id)}.json`, { token: c.caller.token, body: { status: 'ignored' } }),
    verify: (res) => assert.equal(res.json().result.status, 'success'),
  });
});
