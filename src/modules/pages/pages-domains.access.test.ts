// Who may call each pages domains route, on private, internal and public projects: Maintainers and
// up (administrators too); a caller who sees the project without that role gets 403, one who does
// not see it 404, an anonymous caller 401. The administrators' list: administrators only.
// Domains are made by root where a route acts on one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { PagesDomainBasicEntity, PagesDomainEntity } from './pages-domains.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const domainOf = new Map<number, string>();
let sequence = 0;

before(async () => {
  // No DNS server answers: verification fails at once.
  t = await createTestApp({ QUARRY_PAGES_DNS_SERVERS: '127.0.0.1:9' });
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) domainOf.set(project.id, await fresh(project.id));
});
after(() => t.close());

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/pages/domains`;
const name = () => `matrix-${++sequence}.example.com`;
const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });

/** A new domain of the project, added by root. */
async function fresh(projectId: number): Promise<string> {
  const domain = name();
  const res = await t.post(`/api/v4/projects/${projectId}/pages/domains`, { token: ROOT_TOKEN, body: { domain } });
  assert.equal(res.statusCode, 201, res.body);
  return domain;
}

test('GET pages/domains', async () => {
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), PagesDomainEntity) });
});

test('GET pages/domains/:domain', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/${domainOf.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), PagesDomainEntity),
  });
});

test('POST pages/domains', async () => {
  await runMatrix(world, {
    expect: maintainers(201),
    errors: refusals('Project'),
    call: (c) => t.post(base(c), { token: c.caller.token, body: { domain: name() } }),
    verify: (res) => expectEntity(res.json(), PagesDomainEntity),
  });
});

test('PUT pages/domains/:domain', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/${domainOf.get(c.project.id)}`, { token: c.caller.token, body: { auto_ssl_enabled: c.role === 'owner' } }),
    verify: (res, c) => {
      expectEntity(res.json(), PagesDomainEntity);
      assert.equal(res.json().auto_ssl_enabled, c.role === 'owner');
    },
  });
});

test('DELETE pages/domains/:domain', async () => {
  await runMatrix(world, { expect: maintainers(204), errors: refusals('Project'), call: async (c) => t.del(`${base(c)}/${await fresh(c.project.id)}`, { token: c.caller.token }) });
});

test('GET /pages/domains: administrators only', async () => {
  await runMatrix(world, {
    expect: (role) => (role === 'anonymous' ? 401 : role === 'admin' ? 200 : 403),
    errors: { 401: { message: '401 Unauthorized' }, 403: { message: '403 Forbidden' } },
    call: (c) => t.get('/api/v4/pages/domains', { token: c.caller.token }),
    verify: (res) => expectEntities(res.json(), PagesDomainBasicEntity),
  });
});
