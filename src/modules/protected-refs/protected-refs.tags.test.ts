// Protected tags through the API: protecting with the default and every create level, the model's
// refusals, listing with pagination, showing by exact name, unprotecting, and the rules the push
// code reads back.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { canCreateTag, pusherOf } from '../../domain/ref-protection.ts';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { loadRefProtections } from './protected-refs.finder.ts';
import { ProtectedTagEntity } from './protected-refs.schemas.ts';

let t: TestApp;
let maintainer: TestUser;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  maintainer = await t.user();
});
after(() => t.close());

beforeEach(async () => {
  project = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
});

const url = (suffix = '') => `/api/v4/projects/${project.id}/protected_tags${suffix}`;
const protect = (body: Record<string, unknown>, token = maintainer.token) => t.post(url(), { token, body });
const level = (access_level: number, access_level_description: string) => ({ access_level, access_level_description, user_id: null, group_id: null });

async function stored(): Promise<number> {
  const rows = await t.deps.db.selectFrom('protected_tags').select('id').where('project_id', '=', project.id).execute();
  return rows.length;
}

describe('POST /projects/:id/protected_tags', () => {
  test('protects a name or pattern, Maintainers creating by default', async () => {
    const res = await protect({ name: 'v*' });
    expectStatus(res, 201);
    expectEntity(res.json(), ProtectedTagEntity);
    assert.deepEqual(res.json(), { name: 'v*', create_access_levels: [level(40, 'Maintainers')] });
  });

  test('every create level', async () => {
    const cases: [number, string][] = [
      [0, 'No one'],
      [30, 'Developers + Maintainers'],
      [40, 'Maintainers'],
      [60, 'Instance admins'],
    ];
    for (const [access, description] of cases) {
      const res = await protect({ name: `release-${access}`, create_access_level: access });
      expectStatus(res, 201);
      assert.deepEqual(res.json().create_access_levels, [level(access, description)]);
    }
  });

  test('a name already protected, or a blank one: 422 with the model messages', async () => {
    expectStatus(await protect({ name: 'v1.0' }), 201);
    expectError(await protect({ name: 'v1.0', create_access_level: 30 }), 422, { message: ['Name has already been taken'] });
    expectError(await protect({ name: '' }), 422, { message: ["Name can't be blank"] });
    expectError(await protect({ name: '   ' }), 422, { message: ["Name can't be blank"] });
    expectStatus(await protect({ name: 'V1.0' }), 201);
    assert.equal(await stored(), 2);
  });

  test('parameter errors: 400 with the parameter named', async () => {
    expectError(await protect({}), 400, { error: 'name is missing' });
    expectError(await protect({ name: 'v*', create_access_level: 10 }), 400, { error: 'create_access_level does not have a valid value' });
    expectError(await protect({ name: 'v*', create_access_level: '4O' }), 400, { error: 'create_access_level is invalid' });
    expectError(await protect({ create_access_level: 50 }), 400, { error: 'name is missing, create_access_level does not have a valid value' });
    assert.equal(await stored(), 0);
  });

  test('long and unusual names, never a server error', async () => {
    for (const name of ['t'.repeat(70_000), '🏷️/*', 'ẞ-1', 'a\u202Eb']) {
      const res = await protect({ name });
      expectStatus(res, 201);
      assert.equal(res.json().name, name);
    }
  });
});

describe('GET /projects/:id/protected_tags(/:name)', () => {
  test('lists by creation, paginated', async () => {
    for (const name of ['v*', 'release-*', 'stable']) expectStatus(await protect({ name }), 201);
    const res = await t.get(url(), { token: maintainer.token });
    expectStatus(res, 200);
    expectEntities(res.json(), ProtectedTagEntity);
    assert.deepEqual(res.json().map((tag: { name: string }) => tag.name), ['v*', 'release-*', 'stable']);
    assert.equal(res.headers['x-total'], '3');
    const page = await t.get(url(), { token: maintainer.token, query: { per_page: '2' } });
    assert.deepEqual(page.json().map((tag: { name: string }) => tag.name), ['v*', 'release-*']);
    assert.deepEqual([page.headers['x-page'], page.headers['x-next-page'], page.headers['x-total-pages']], ['1', '2', '2']);
    assert.match(String(page.headers.link), /rel="next".*rel="first".*rel="last"/);
  });

  test('one rule by its exact name', async () => {
    expectStatus(await protect({ name: 'release/*', create_access_level: 30 }), 201);
    const res = await t.get(url('/release%2F*'), { token: maintainer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ProtectedTagEntity);
    assert.deepEqual(res.json(), { name: 'release/*', create_access_levels: [level(30, 'Developers + Maintainers')] });
    expectError(await t.get(url('/release%2F1'), { token: maintainer.token }), 404, { message: '404 Not found' });
  });
});

describe('DELETE /projects/:id/protected_tags/:name', () => {
  test('removes the rule: 204, then 404', async () => {
    expectStatus(await protect({ name: 'v*' }), 201);
    const res = await t.del(url('/v*'), { token: maintainer.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    assert.equal(await stored(), 0);
    expectError(await t.del(url('/v*'), { token: maintainer.token }), 404, { message: '404 Not found' });
  });

  test('If-Unmodified-Since before the last change: 412, the rule kept', async () => {
    expectStatus(await protect({ name: 'v*' }), 201);
    expectError(await t.del(url('/v*'), { token: ROOT_TOKEN, headers: { 'if-unmodified-since': 'Wed, 21 Oct 2015 07:28:00 GMT' } }), 412, {
      message: '412 Precondition Failed',
    });
    assert.equal(await stored(), 1);
  });
});

test('the rules the push code reads back', async () => {
  expectStatus(await protect({ name: 'v*' }), 201);
  expectStatus(await protect({ name: 'nightly-*', create_access_level: 30 }), 201);
  const protections = await loadRefProtections(t.deps.db, project.id);
  assert.deepEqual(protections, {
    branches: [],
    tags: [
      { name: 'v*', createAccessLevels: [40] },
      { name: 'nightly-*', createAccessLevels: [30] },
    ],
  });
  const dev = pusherOf({ access: ACCESS.DEVELOPER, can: new Set(['push_code']) }, { isAdmin: false });
  assert.deepEqual(['v1', 'nightly-1', 'other'].map((tag) => canCreateTag(protections, tag, dev)), [false, true, true]);
});
