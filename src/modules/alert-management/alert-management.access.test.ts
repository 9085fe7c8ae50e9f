// Who may call each alert management route, on private, internal and public projects: the HTTP
// integrations are Maintainers' and up (administrators too), the alerts Developers' and up; a
// caller who sees the project without that role gets 403, one who does not see it 404, an
// anonymous caller 401. The receiver asks no user: its token is the integration's (tested in
// alert-notify.test.ts). Integrations and alerts are made by root where a route acts on one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { AlertEntity, HttpIntegrationEntity } from './alert-management.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const integrationOf = new Map<number, number>();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) {
    const integration = await fresh(project.id);
    integrationOf.set(project.id, integration.id);
    // One alert per project, received at the integration's address.
    const res = await t.request('POST', new URL(integration.url).pathname, { headers: { authorization: `Bearer ${integration.token}` }, body: { title: 'Disk full' } });
    assert.equal(res.statusCode, 200, res.body);
  }
});
after(() => t.close());

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/alert_management_http_integrations`;
const alerts = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/alert_management_alerts`;
const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });
const developers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.DEVELOPER });

/** A new integration of the project, added by root. */
async function fresh(projectId: number): Promise<{ id: number; url: string; token: string }> {
  const res = await t.post(`/api/v4/projects/${projectId}/alert_management_http_integrations`, { token: ROOT_TOKEN, body: { name: 'Monitoring', active: true } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

test('GET alert_management_http_integrations', async () => {
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), HttpIntegrationEntity) });
});

test('GET alert_management_http_integrations/:integration_id', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/${integrationOf.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), HttpIntegrationEntity),
  });
});

test('POST alert_management_http_integrations', async () => {
  await runMatrix(world, {
    expect: maintainers(201),
    errors: refusals('Project'),
    call: (c) => t.post(base(c), { token: c.caller.token, body: { name: `by ${c.role}` } }),
    verify: (res, c) => {
      expectEntity(res.json(), HttpIntegrationEntity);
      assert.equal(res.json().name, `by ${c.role}`);
    },
  });
});

test('PUT alert_management_http_integrations/:integration_id', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/${integrationOf.get(c.project.id)}`, { token: c.caller.token, body: { name: `renamed by ${c.role}` } }),
    verify: (res, c) => {
      expectEntity(res.json(), HttpIntegrationEntity);
      assert.equal(res.json().name, `renamed by ${c.role}`);
    },
  });
});

test('POST alert_management_http_integrations/:integration_id/reset_token', async () => {
  await runMatrix(world, {
    expect: maintainers(201),
    errors: refusals('Project'),
    call: async (c) => t.post(`${base(c)}/${(await fresh(c.project.id)).id}/reset_token`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), HttpIntegrationEntity),
  });
});

test('DELETE alert_management_http_integrations/:integration_id', async () => {
  await runMatrix(world, {
    expect: maintainers(204),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${(await fresh(c.project.id)).id}`, { token: c.caller.token }),
  });
});

test('GET alert_management_alerts', async () => {
  await runMatrix(world, {
    expect: developers(200),
    errors: refusals('Project'),
    call: (c) => t.get(alerts(c), { token: c.caller.token }),
    verify: (res) => {
      expectEntities(res.json(), AlertEntity);
      assert.ok(res.json().length >= 1);
    },
  });
});

test('GET alert_management_alerts/:alert_iid', async () => {
  await runMatrix(world, {
    expect: developers(200),
    errors: refusals('Project'),
    call: (c) => t.get(`${alerts(c)}/1`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), AlertEntity),
  });
});

test('PUT alert_management_alerts/:alert_iid', async () => {
  await runMatrix(world, {
    expect: developers(200),
    errors: refusals('Project'),
    call: (c) => t.put(`${alerts(c)}/1`, { token: c.caller.token, body: { status: 'acknowledged' } }),
    verify: (res) => {
      expectEntity(res.json(), AlertEntity);
      assert.equal(res.json().status, 'acknowledged');
    },
  });
});
