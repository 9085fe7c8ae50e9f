// Managed licenses (spec §4.8): by id or URL-encoded name (any case), approved or blacklisted,
// duplicates and bad statuses refused with the platform's bodies; and the access matrix: read by
// Reporters and up and by anyone who sees a public or internal project (the list without signing
// in), written by Maintainers.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Expectation, type MatrixWorld, ROLE_LEVEL, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { ManagedLicenseEntity } from './managed-licenses.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let sequence = 0;

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
});
after(() => t.close());

const base = (projectId: number) => `/api/v4/projects/${projectId}/managed_licenses`;

async function fresh(projectId: number, name = `License ${++sequence}`): Promise<{ id: number; name: string }> {
  const res = await t.post(base(projectId), { token: ROOT_TOKEN, body: { name, approval_status: 'approved' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

describe('managed licenses', () => {
  let projectId: number;
  before(() => {
    projectId = world.projects.private.id;
  });

  test('create, read by id or by URL-encoded name in any case, update, delete', async () => {
    const created = await t.post(base(projectId), { token: ROOT_TOKEN, body: { name: 'Apache License 2.0', approval_status: 'blacklisted' } });
    expectStatus(created, 201);
    expectEntity(created.json(), ManagedLicenseEntity);
    assert.deepEqual({ ...(created.json() as object), id: 0 }, { id: 0, name: 'Apache License 2.0', approval_status: 'blacklisted' });
    const id = created.json().id;
    for (const ref of [String(id), encodeURIComponent('Apache License 2.0'), encodeURIComponent('apache license 2.0')]) {
      const res = await t.get(`${base(projectId)}/${ref}`, { token: ROOT_TOKEN });
      expectStatus(res, 200);
      assert.equal(res.json().id, id);
    }
    const updated = await t.request('PATCH', `${base(projectId)}/${encodeURIComponent('Apache License 2.0')}`, { token: ROOT_TOKEN, body: { approval_status: 'approved' } });
    expectStatus(updated, 200);
    assert.equal(updated.json().approval_status, 'approved');
    const list = await t.get(base(projectId), { token: ROOT_TOKEN });
    expectEntities(list.json(), ManagedLicenseEntity);
    assert.ok(list.json().some((l: { id: number; approval_status: string }) => l.id === id && l.approval_status === 'approved'));
    expectStatus(await t.del(`${base(projectId)}/${id}`, { token: ROOT_TOKEN }), 204);
    const gone = await t.get(`${base(projectId)}/${id}`, { token: ROOT_TOKEN });
    expectStatus(gone, 404);
    assert.deepEqual(gone.json(), { message: '404 SoftwareLicensePolicy Not Found' });
  });

  test('a duplicate name, a bad status, a missing name: 400', async () => {
    await fresh(projectId, 'MIT');
    const duplicate = await t.post(base(projectId), { token: ROOT_TOKEN, body: { name: 'MIT', approval_status: 'blacklisted' } });
    expectStatus(duplicate, 400);
    assert.deepEqual(duplicate.json(), { message: ['Software license has already been taken'] });
    const bad = await t.post(base(projectId), { token: ROOT_TOKEN, body: { name: 'X', approval_status: 'denied' } });
    expectStatus(bad, 400);
    assert.deepEqual(bad.json(), { error: 'approval_status does not have a valid value' });
    const missing = await t.post(base(projectId), { token: ROOT_TOKEN, body: { approval_status: 'approved' } });
    expectStatus(missing, 400);
    assert.deepEqual(missing.json(), { error: 'name is missing' });
    const patch = await t.request('PATCH', `${base(projectId)}/MIT`, { token: ROOT_TOKEN, body: { approval_status: 'nope' } });
    expectStatus(patch, 400);
    assert.deepEqual(patch.json(), { error: 'approval_status does not have a valid value' });
  });
});

/** Readers: Reporters of a private project, anyone who sees a public or internal one. */
const readers = (auth: 'required' | 'optional'): Expectation => (role, visibility) => {
  const status = expectation({ auth, success: 200 })(role, visibility);
  if (status === 200 && visibility === 'private' && role !== 'admin' && ROLE_LEVEL[role] < ACCESS.REPORTER) return 403;
  return status;
};
const maintainers = (success: number) => expectation({ auth: 'required', success, minLevel: ACCESS.MAINTAINER });

describe('access', () => {
  test('GET managed_licenses', async () => {
    await runMatrix(world, { expect: readers('optional'), errors: refusals('Project'), call: (c) => t.get(base(c.project.id), { token: c.caller.token }), verify: (res) => expectEntities(res.json(), ManagedLicenseEntity) });
  });

  test('GET managed_licenses/:id', async () => {
    const ids = new Map<number, number>();
    for (const project of Object.values(world.projects)) ids.set(project.id, (await fresh(project.id)).id);
    await runMatrix(world, {
      expect: readers('required'),
      errors: refusals('Project'),
      call: (c) => t.get(`${base(c.project.id)}/${ids.get(c.project.id)}`, { token: c.caller.token }),
      verify: (res) => expectEntity(res.json(), ManagedLicenseEntity),
    });
  });

  test('POST managed_licenses', async () => {
    await runMatrix(world, {
      expect: maintainers(201),
      errors: refusals('Project'),
      call: (c) => t.post(base(c.project.id), { token: c.caller.token, body: { name: `by ${c.role} ${++sequence}`, approval_status: 'approved' } }),
      verify: (res) => expectEntity(res.json(), ManagedLicenseEntity),
    });
  });

  test('PATCH managed_licenses/:id', async () => {
    await runMatrix(world, {
      expect: maintainers(200),
      errors: refusals('Project'),
      call: async (c) => t.request('PATCH', `${base(c.project.id)}/${(await fresh(c.project.id)).id}`, { token: c.caller.token, body: { approval_status: 'blacklisted' } }),
      verify: (res) => expectEntity(res.json(), ManagedLicenseEntity),
    });
  });

  test('DELETE managed_licenses/:id', async () => {
    await runMatrix(world, { expect: maintainers(204), errors: refusals('Project'), call: async (c) => t.del(`${base(c.project.id)}/${(await fresh(c.project.id)).id}`, { token: c.caller.token }) });
  });

  test('GET pipelines/:pipeline_id/licenses: 404 for a pipeline the project does not have', async () => {
    const res = await t.get(`/api/v4/projects/${world.projects.public.id}/pipelines/999999/licenses`);
    expectStatus(res, 404);
    assert.deepEqual(res.json(), { message: '404 Pipeline Not Found' });
  });
});
