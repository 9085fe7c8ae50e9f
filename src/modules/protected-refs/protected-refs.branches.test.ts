// Protected branches through the API: protecting with defaults and every option, wildcard names,
// the platform's refusals, listing with search and pagination, unprotecting, and the rules the
// push code reads back.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { canForcePush, canPushToBranch, pusherOf } from '../../domain/ref-protection.ts';
import { createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { loadRefProtections } from './protected-refs.finder.ts';
import { ProtectedBranchEntity } from './protected-refs.schemas.ts';

let t: TestApp;
let maintainer: TestUser;
let developer: TestUser;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  maintainer = await t.user();
  developer = await t.user();
});
after(() => t.close());

beforeEach(async () => {
  project = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER], [developer.user.id, ACCESS.DEVELOPER]] });
});

const url = (suffix = '', p = project) => `/api/v4/projects/${p.id}/protected_branches${suffix}`;
const protect = (body: Record<string, unknown>, token = maintainer.token) => t.post(url(), { token, body });
const level = (access_level: number, access_level_description: string) => ({ access_level, access_level_description, user_id: null, group_id: null });
const MAINTAINERS = level(ACCESS.MAINTAINER, 'Maintainers');

/** The project's rules and their access levels, to prove a refused request wrote nothing. */
async function stored(p = project): Promise<[number, number]> {
  const { db } = t.deps;
  const rules = await db.selectFrom('protected_branches').select('id').where('project_id', '=', p.id).execute();
  const levels = await db
    .selectFrom('protected_branch_access_levels as l')
    .innerJoin('protected_branches as b', 'b.id', 'l.protected_branch_id')
    .select('l.id')
    .where('b.project_id', '=', p.id)
    .execute();
  return [rules.length, levels.length];
}

describe('POST /projects/:id/protected_branches', () => {
  test('protects a name that is no branch yet, every level defaulting to Maintainers', async () => {
    const res = await protect({ name: 'main' });
    expectStatus(res, 201);
    expectEntity(res.json(), ProtectedBranchEntity);
    assert.deepEqual(res.json(), {
      id: res.json().id,
      name: 'main',
      push_access_levels: [MAINTAINERS],
      merge_access_levels: [MAINTAINERS],
      allow_force_push: false,
      unprotect_access_levels: [MAINTAINERS],
      code_owner_approval_required: false,
    });
  });

  test('every option, as JSON or as form parameters', async () => {
    const res = await protect({
      name: 'release/*',
      push_access_level: ACCESS.NO_ACCESS,
      merge_access_level: ACCESS.DEVELOPER,
      unprotect_access_level: ACCESS.DEVELOPER,
      allow_force_push: true,
      code_owner_approval_required: true,
    });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, ProtectedBranchEntity);
    assert.deepEqual(
      { ...body, id: 0 },
      {
        id: 0,
        name: 'release/*',
        push_access_levels: [level(0, 'No one')],
        merge_access_levels: [level(30, 'Developers + Maintainers')],
        allow_force_push: true,
        unprotect_access_levels: [level(30, 'Developers + Maintainers')],
        code_owner_approval_required: true,
      },
    );
    const form = await t.post(url(), { token: maintainer.token, form: 'name=hot%2A&push_access_level=30&allow_force_push=yes' });
    expectStatus(form, 201);
    assert.deepEqual([form.json().name, form.json().push_access_levels, form.json().allow_force_push], ['hot*', [level(30, 'Developers + Maintainers')], true]);
  });

  test('allowed_to_push: roles and deploy keys enabled on the project; the default level only without it', async () => {
    const sshKey = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOHVDTZWbbnmJdG4B2yUtZ3cxHcsTJ6J9BmTxB1bHw7S deploy';
    const added = await t.post(`/api/v4/projects/${project.id}/deploy_keys`, { token: maintainer.token, body: { title: 'deploy', key: sshKey, can_push: true } });
    expectStatus(added, 201);
    const keyId: number = added.json().id;
    const res = await protect({ name: 'release/*', allowed_to_push: [{ deploy_key_id: keyId }, { access_level: ACCESS.DEVELOPER }] });
    expectStatus(res, 201);
    expectEntity(res.json(), ProtectedBranchEntity);
    assert.deepEqual(res.json().push_access_levels, [
      { ...MAINTAINERS, access_level_description: 'Deploy key', deploy_key_id: keyId },
      level(ACCESS.DEVELOPER, 'Developers + Maintainers'),
    ]);
    const rules = await loadRefProtections(t.deps.db, project.id);
    assert.deepEqual([rules.branches[0].pushAccessLevels, rules.branches[0].pushDeployKeyIds], [[ACCESS.DEVELOPER], [keyId]]);
    // With push_access_level too, both apply.
    const both = await protect({ name: 'hotfix', push_access_level: ACCESS.MAINTAINER, allowed_to_push: [{ deploy_key_id: keyId }] });
    assert.deepEqual(both.json().push_access_levels.map((l: { access_level_description: string }) => l.access_level_description), ['Maintainers', 'Deploy key']);
    const fetched = await t.get(url('/hotfix'), { token: maintainer.token });
    assert.deepEqual(fetched.json().push_access_levels, both.json().push_access_levels);
    // Removing the key removes its level.
    expectStatus(await t.del(`/api/v4/projects/${project.id}/deploy_keys/${keyId}`, { token: maintainer.token }), 204);
    assert.deepEqual((await t.get(url('/hotfix'), { token: maintainer.token })).json().push_access_levels, [MAINTAINERS]);
  });

  test('allowed_to_push refusals: a key not enabled here, a repeated entry, user and group rules', async () => {
    const before = await stored();
    expectError(await protect({ name: 'a', allowed_to_push: [{ deploy_key_id: 999999 }] }), 422, { message: ['Push access levels deploy key is not enabled for this project'] });
    expectError(await protect({ name: 'a', push_access_level: 30, allowed_to_push: [{ access_level: 30 }] }), 422, { message: ['Push access levels access level has already been taken'] });
    expectError(await protect({ name: 'a', allowed_to_push: [{ user_id: maintainer.user.id }] }), 400, {
      message: '400 Bad request - allowed_to_push takes access levels and deploy keys; user and group rules are not offered',
    });
    expectError(await protect({ name: 'a', allowed_to_push: [{ deploy_key_id: 'x' }] }), 400, { error: 'allowed_to_push[][deploy_key_id] is invalid' });
    expectError(await protect({ name: 'a', allowed_to_push: 'all' }), 400, { error: 'allowed_to_push is invalid' });
    assert.deepEqual(await stored(), before);
  });

  test('the Instance admins level: only administrators may unprotect such a rule, so only they create it', async () => {
    expectError(await protect({ name: 'vault', unprotect_access_level: 60 }), 403, { message: '403 Forbidden' });
    const res = await protect({ name: 'vault', push_access_level: 60, unprotect_access_level: 60 }, ROOT_TOKEN);
    expectStatus(res, 201);
    assert.deepEqual(res.json().push_access_levels, [level(60, 'Instance admins')]);
    assert.deepEqual(res.json().unprotect_access_levels, [level(60, 'Instance admins')]);
    expectError(await t.del(url('/vault'), { token: maintainer.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(url('/vault'), { token: ROOT_TOKEN }), 204);
  });

  test('a rule nobody could unprotect is refused to everybody', async () => {
    expectError(await protect({ name: 'forever', unprotect_access_level: 0 }, ROOT_TOKEN), 403, { message: '403 Forbidden' });
    assert.deepEqual(await stored(), [0, 0]);
  });

  test('a name already protected: 409; names are case-sensitive', async () => {
    expectStatus(await protect({ name: 'release/*' }), 201);
    expectError(await protect({ name: 'release/*', push_access_level: 30 }), 409, { message: "Protected branch 'release/*' already exists" });
    expectStatus(await protect({ name: 'Release/*' }), 201);
  });

  test('parameter errors: 400 with the parameter named', async () => {
    expectError(await protect({}), 400, { error: 'name is missing' });
    expectError(await protect({ name: null }), 400, { error: 'name is missing' });
    expectError(await protect({ name: 'x', push_access_level: 20 }), 400, { error: 'push_access_level does not have a valid value' });
    expectError(await protect({ name: 'x', merge_access_level: 50 }), 400, { error: 'merge_access_level does not have a valid value' });
    expectError(await protect({ name: 'x', unprotect_access_level: 'max' }), 400, { error: 'unprotect_access_level is invalid' });
    expectError(await protect({ name: 'x', allow_force_push: 'maybe' }), 400, { error: 'allow_force_push is invalid' });
    expectError(await protect({ push_access_level: -1, code_owner_approval_required: [] }), 400, {
      error: 'name is missing, push_access_level does not have a valid value, code_owner_approval_required is invalid',
    });
    assert.deepEqual(await stored(), [0, 0]);
  });

  test('a blank name: 422 with the model message', async () => {
    expectError(await protect({ name: '' }), 422, { message: ["Name can't be blank"] });
    expectError(await protect({ name: ' \t ' }), 422, { message: ["Name can't be blank"] });
    assert.deepEqual(await stored(), [0, 0]);
  });

  test('long and unusual names are kept as given, never a server error', async () => {
    for (const name of ['b'.repeat(70_000), 'ünïcödé/ブランチ', '😀/*', 'a\u202Eb', 'with space', "o'neil;--", '%2F', '../..']) {
      const res = await protect({ name });
      expectStatus(res, 201);
      assert.equal(res.json().name, name);
    }
    // An unpaired surrogate cannot be stored as UTF-8; it is replaced rather than refused.
    expectStatus(await protect({ name: 'x\uD800' }), 201);
  });

  test('the project by its full path; unknown projects and anonymous callers', async () => {
    expectStatus(await t.post(`/api/v4/projects/${encodeURIComponent(project.full_path)}/protected_branches`, { token: maintainer.token, body: { name: 'main' } }), 201);
    expectError(await t.post('/api/v4/projects/99999/protected_branches', { token: ROOT_TOKEN, body: { name: 'x' } }), 404, { message: '404 Project Not Found' });
    expectError(await t.post(url(), { body: { name: 'x' } }), 404, { message: '404 Project Not Found' });
  });
});

describe('GET /projects/:id/protected_branches(/:name)', () => {
  test('lists by creation, paginated, with search', async () => {
    for (const name of ['main', 'release/*', 'feature-x', 'Release-2']) expectStatus(await protect({ name }), 201);
    const other = await createProject(t, { members: [[maintainer.user.id, ACCESS.MAINTAINER]] });
    expectStatus(await t.post(url('', other), { token: maintainer.token, body: { name: 'elsewhere' } }), 201);

    const res = await t.get(url(), { token: maintainer.token });
    expectStatus(res, 200);
    expectEntities(res.json(), ProtectedBranchEntity);
    assert.deepEqual(
      res.json().map((b: { name: string }) => b.name),
      ['main', 'release/*', 'feature-x', 'Release-2'],
    );
    assert.equal(res.headers['x-total'], '4');

    const page = await t.get(url(), { token: maintainer.token, query: { per_page: '3', page: '2' } });
    expectStatus(page, 200);
    assert.deepEqual(page.json().map((b: { name: string }) => b.name), ['Release-2']);
    assert.deepEqual(
      [page.headers['x-page'], page.headers['x-per-page'], page.headers['x-total'], page.headers['x-total-pages'], page.headers['x-prev-page'], page.headers['x-next-page']],
      ['2', '3', '4', '2', '1', ''],
    );
    assert.match(String(page.headers.link), /rel="prev".*rel="first".*rel="last"/);

    const found = await t.get(url(), { token: maintainer.token, query: { search: 'REL' } });
    assert.deepEqual(found.json().map((b: { name: string }) => b.name), ['release/*', 'Release-2']);
    assert.equal(found.headers['x-total'], '2');
    const short = await t.get(url(), { token: maintainer.token, query: { search: 'ma' } });
    assert.deepEqual(short.json(), []);
    expectError(await t.get(url(), { token: maintainer.token, query: { pagination: 'keyset' } }), 405, { error: 'Keyset pagination is not yet available for this type of request' });
  });

  test('one rule by its exact name: a wildcard is looked up literally, never matched', async () => {
    const created = (await protect({ name: 'release/*', merge_access_level: 30 })).json();
    const res = await t.get(url('/release%2F*'), { token: maintainer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), ProtectedBranchEntity);
    assert.deepEqual(res.json(), created);
    expectError(await t.get(url('/release%2F1.0'), { token: maintainer.token }), 404, { message: '404 Not found' });
    expectError(await t.get(url('/Release%2F*'), { token: maintainer.token }), 404, { message: '404 Not found' });
  });

  test('names with dots and unicode', async () => {
    for (const name of ['v1.0', 'ブランチ', 'a+b']) {
      expectStatus(await protect({ name }), 201);
      const res = await t.get(url(`/${encodeURIComponent(name)}`), { token: maintainer.token });
      expectStatus(res, 200);
      assert.equal(res.json().name, name);
    }
  });
});

describe('DELETE /projects/:id/protected_branches/:name', () => {
  test('removes the rule: 204, then 404', async () => {
    expectStatus(await protect({ name: 'release/*' }), 201);
    const res = await t.del(url('/release%2F*'), { token: maintainer.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    assert.deepEqual(await stored(), [0, 0]);
    expectError(await t.get(url('/release%2F*'), { token: maintainer.token }), 404, { message: '404 Not found' });
    expectError(await t.del(url('/release%2F*'), { token: maintainer.token }), 404, { message: '404 Not found' });
  });

  test('If-Unmodified-Since before the last change: 412, the rule kept', async () => {
    expectStatus(await protect({ name: 'main' }), 201);
    expectError(await t.del(url('/main'), { token: maintainer.token, headers: { 'if-unmodified-since': 'Wed, 21 Oct 2015 07:28:00 GMT' } }), 412, {
      message: '412 Precondition Failed',
    });
    expectStatus(await t.get(url('/main'), { token: maintainer.token }), 200);
    expectStatus(await t.del(url('/main'), { token: maintainer.token, headers: { 'if-unmodified-since': new Date(Date.now() + 60_000).toUTCString() } }), 204);
  });

  test('developers may not unprotect, even a rule they may unprotect by its levels', async () => {
    expectStatus(await protect({ name: 'main', unprotect_access_level: 30 }), 201);
    expectError(await t.del(url('/main'), { token: developer.token }), 403, { message: '403 Forbidden' });
  });

  test("a project's rules go with it", async () => {
    expectStatus(await protect({ name: 'main' }), 201);
    const [rules, levels] = [await t.count('protected_branches'), await t.count('protected_branch_access_levels')];
    await t.deps.db.deleteFrom('projects').where('id', '=', project.id).execute();
    assert.deepEqual([await t.count('protected_branches'), await t.count('protected_branch_access_levels')], [rules - 1, levels - 3]);
  });
});

test('the rules the push code reads back', async () => {
  expectStatus(await protect({ name: 'main' }), 201);
  expectStatus(await protect({ name: 'wip/*', push_access_level: 30, allow_force_push: true }), 201);
  const protections = await loadRefProtections(t.deps.db, project.id);
  assert.deepEqual(protections, {
    branches: [
      { name: 'main', pushAccessLevels: [40], pushDeployKeyIds: [], mergeAccessLevels: [40], unprotectAccessLevels: [40], allowForcePush: false, codeOwnerApprovalRequired: false },
      { name: 'wip/*', pushAccessLevels: [30], pushDeployKeyIds: [], mergeAccessLevels: [40], unprotectAccessLevels: [40], allowForcePush: true, codeOwnerApprovalRequired: false },
    ],
    tags: [],
  });
  const dev = pusherOf({ access: ACCESS.DEVELOPER, can: new Set(['push_code']) }, { isAdmin: false });
  assert.deepEqual(
    [canPushToBranch(protections, 'main', dev), canPushToBranch(protections, 'wip/x', dev), canForcePush(protections, 'wip/x', dev), canPushToBranch(protections, 'topic', dev)],
    [false, true, true, true],
  );
});
