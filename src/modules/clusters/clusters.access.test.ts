// Who may call each project clusters route, on private, internal and public projects: Maintainers
// and up (administrators too); a caller who sees the project without that role gets 403, one who
// does not see it 404, an anonymous caller 401. Clusters are made by root where a route acts on one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type MatrixCall, type MatrixWorld, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { ClusterEntity, ClusterProjectEntity } from './clusters.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
const clusterOf = new Map<number, number>();
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  for (const project of Object.values(world.projects)) clusterOf.set(project.id, await fresh(project.id));
});
after(() => t.close());

const base = (c: MatrixCall) => `/api/v4/projects/${c.project.id}/clusters`;
const body = () => ({ name: 'matrix', environment_scope: `env-${++sequence}`, platform_kubernetes_attributes: { api_url: 'https://kubernetes.example.com', token: 'secret-token' } });
const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });

/** A new cluster of the project, added by root. */
async function fresh(projectId: number): Promise<number> {
  const res = await t.post(`/api/v4/projects/${projectId}/clusters/user`, { token: ROOT_TOKEN, body: body() });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

test('GET clusters', async () => {
  await runMatrix(world, { expect: maintainers(200), errors: refusals('Project'), call: (c) => t.get(base(c), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), ClusterEntity) });
});

test('GET clusters/:cluster_id', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.get(`${base(c)}/${clusterOf.get(c.project.id)}`, { token: c.caller.token }),
    verify: (res) => expectEntity(res.json(), ClusterProjectEntity),
  });
});

test('POST clusters/user', async () => {
  await runMatrix(world, {
    expect: maintainers(201),
    errors: refusals('Project'),
    call: (c) => t.post(`${base(c)}/user`, { token: c.caller.token, body: body() }),
    verify: (res, c) => {
      expectEntity(res.json(), ClusterProjectEntity);
      assert.equal(res.json().user.id, c.caller.user!.id);
    },
  });
});

test('PUT clusters/:cluster_id', async () => {
  await runMatrix(world, {
    expect: maintainers(200),
    errors: refusals('Project'),
    call: (c) => t.put(`${base(c)}/${clusterOf.get(c.project.id)}`, { token: c.caller.token, body: { name: `renamed by ${c.role}` } }),
    verify: (res, c) => {
      expectEntity(res.json(), ClusterProjectEntity);
      assert.equal(res.json().name, `renamed by ${c.role}`);
    },
  });
});

test('DELETE clusters/:cluster_id', async () => {
  await runMatrix(world, {
    expect: maintainers(204),
    errors: refusals('Project'),
    call: async (c) => t.del(`${base(c)}/${await fresh(c.project.id)}`, { token: c.caller.token }),
  });
});
