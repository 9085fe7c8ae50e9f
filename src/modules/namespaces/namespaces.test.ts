// GET /namespaces, GET /namespaces/:id and GET /namespaces/:namespace/exists: who reads which
// namespace, the fields owners alone see, member counts, search, and path suggestions.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ACCESS, type VisibilityName } from '../../core/access/levels.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { addMember, createGroup, createProject, personalNamespace } from '../../../test/factories.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { NamespaceEntity, NamespaceExistenceEntity } from './namespaces.schemas.ts';

const ROLES = ['anonymous', 'nonMember', 'guest', 'reporter', 'developer', 'maintainer', 'owner', 'admin', 'external', 'blocked'] as const;
type Role = (typeof ROLES)[number];
const LEVELS: Partial<Record<Role, number>> = {
  guest: ACCESS.GUEST,
  reporter: ACCESS.REPORTER,
  developer: ACCESS.DEVELOPER,
  maintainer: ACCESS.MAINTAINER,
  owner: ACCESS.OWNER,
};

let t: TestApp;
const tokens: Partial<Record<Role, string>> = { admin: ROOT_TOKEN };
const users: Partial<Record<Role, TestUser>> = {};
const groups: Partial<Record<VisibilityName, NamespaceRow>> = {};

before(async () => {
  t = await createTestApp();
  for (const role of ROLES) {
    if (role === 'anonymous' || role === 'admin') continue;
    users[role] = await t.user(role === 'external' ? { external: true, username: role } : { username: role });
    tokens[role] = users[role]?.token;
  }
  await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', users.blocked?.user.id as number).execute();
  for (const visibility of ['private', 'internal', 'public'] as const) {
    const members: [number, number][] = Object.entries(LEVELS).map(([role, level]) => [users[role as Role]?.user.id as number, level]);
    members.push([users.blocked?.user.id as number, ACCESS.OWNER]);
    groups[visibility] = await createGroup(t, { path: `ns-${visibility}`, visibility, members });
  }
});
after(() => t.close());

const UNAUTHORIZED = { message: '401 Unauthorized' };
const BLOCKED = { message: '403 Forbidden - Your account has been blocked.' };
const NOT_FOUND = { message: '404 Namespace Not Found' };

/** The namespace as everyone who may read it sees it; `owned` adds what administrators of it see. */
function groupNamespace(group: NamespaceRow, owned: boolean) {
  return {
    id: group.id,
    name: group.name,
    path: group.path,
    kind: 'group',
    full_path: group.full_path,
    parent_id: group.parent_id,
    avatar_url: null,
    web_url: `http://quarry.test/groups/${group.full_path}`,
    // The five roles; the blocked Owner is no active member.
    billable_members_count: 5,
    ...(owned ? { members_count_with_descendants: 5, plan: 'default', trial_ends_on: null, trial: false } : {}),
  };
}

describe('GET /namespaces/:id of a group: members only, whatever the visibility', () => {
  for (const visibility of ['private', 'internal', 'public'] as const) {
    for (const role of ROLES) {
      test(`${visibility} group, ${role}`, async () => {
        const group = groups[visibility] as NamespaceRow;
        const res = await t.get(`/api/v4/namespaces/${group.id}`, { token: tokens[role] });
        if (role === 'anonymous') return expectError(res, 401, UNAUTHORIZED);
        if (role === 'blocked') return expectError(res, 403, BLOCKED);
        if (role === 'nonMember' || role === 'external') return expectError(res, 404, NOT_FOUND);
        expectStatus(res, 200);
        expectEntity(res.json(), NamespaceEntity);
        assert.deepEqual(res.json(), groupNamespace(group, role === 'owner' || role === 'admin'));
      });
    }
  }

  test('by full path, in any case', async () => {
    const res = await t.get('/api/v4/namespaces/NS-PUBLIC', { token: tokens.guest });
    expectStatus(res, 200);
    expectEntity(res.json(), NamespaceEntity);
    assert.equal(res.json().id, groups.public?.id);
  });

  test('unknown ids and paths: 404', async () => {
    for (const id of ['999999', 'nobody-here', encodeURIComponent('ns-public/none')]) {
      expectError(await t.get(`/api/v4/namespaces/${id}`, { token: ROOT_TOKEN }), 404, NOT_FOUND);
    }
  });
});

describe('GET /namespaces/:id of a personal namespace', () => {
  test('its owner and administrators read it, with the plan', async () => {
    const owner = users.guest as TestUser;
    const ns = await personalNamespace(t, owner.user.id);
    const expected = {
      id: ns.id,
      name: owner.user.name,
      path: 'guest',
      kind: 'user',
      full_path: 'guest',
      parent_id: null,
      avatar_url: null,
      web_url: 'http://quarry.test/guest',
      billable_members_count: 1,
      plan: 'default',
      trial_ends_on: null,
      trial: false,
    };
    for (const [token, id] of [
      [owner.token, String(ns.id)],
      [owner.token, 'Guest'],
      [ROOT_TOKEN, 'guest'],
    ] as const) {
      const res = await t.get(`/api/v4/namespaces/${id}`, { token });
      expectStatus(res, 200);
      expectEntity(res.json(), NamespaceEntity);
      assert.deepEqual(res.json(), expected);
    }
  });

  test('others: 404', async () => {
    const ns = await personalNamespace(t, users.guest?.user.id as number);
    expectError(await t.get(`/api/v4/namespaces/${ns.id}`, { token: tokens.owner }), 404, NOT_FOUND);
    expectError(await t.get('/api/v4/namespaces/guest', { token: tokens.nonMember }), 404, NOT_FOUND);
    expectError(await t.get('/api/v4/namespaces/guest'), 401, UNAUTHORIZED);
  });
});

describe('member counts', () => {
  test('members with descendants and billable members: active people, each once', async () => {
    const [a, b, c, d, gone] = [await t.user(), await t.user(), await t.user(), await t.user(), await t.user()];
    await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', gone.user.id).execute();
    const top = await createGroup(t, { path: 'counted', members: [[a.user.id, ACCESS.OWNER], [b.user.id, ACCESS.GUEST], [gone.user.id, ACCESS.DEVELOPER]] });
    const sub = await createGroup(t, { path: 'sub', parent: top, members: [[b.user.id, ACCESS.DEVELOPER], [c.user.id, ACCESS.REPORTER]] });
    await createProject(t, { namespace: sub, members: [[d.user.id, ACCESS.DEVELOPER], [a.user.id, ACCESS.MAINTAINER]] });
    await addMember(t, sub, (users.nonMember as TestUser).user.id, ACCESS.GUEST, '2000-01-01');
    const res = await t.get(`/api/v4/namespaces/${top.id}`, { token: a.token });
    expectStatus(res, 200);
    expectEntity(res.json(), NamespaceEntity);
    // Group members here and below: a, b, c. Billable adds project member d.
    assert.equal(res.json().members_count_with_descendants, 3);
    assert.equal(res.json().billable_members_count, 4);
    const inner = (await t.get(`/api/v4/namespaces/${sub.id}`, { token: a.token })).json();
    assert.deepEqual([inner.members_count_with_descendants, inner.billable_members_count], [2, 4]);
  });
});

describe('GET /namespaces', () => {
  const listed = (res: { json(): unknown }) => (res.json() as { full_path: string }[]).map((n) => n.full_path);

  test('anonymous: 401; blocked: 403', async () => {
    expectError(await t.get('/api/v4/namespaces'), 401, UNAUTHORIZED);
    expectError(await t.get('/api/v4/namespaces', { token: tokens.blocked }), 403, BLOCKED);
  });

  test('a user: their own namespace and the groups they are a direct member of, by id', async () => {
    const below = await createGroup(t, { path: 'below', parent: groups.private, members: [] });
    const res = await t.get('/api/v4/namespaces', { token: tokens.developer });
    expectStatus(res, 200);
    expectEntities(res.json(), NamespaceEntity);
    assert.deepEqual(listed(res), ['developer', 'ns-private', 'ns-internal', 'ns-public']);
    assert.ok(!listed(res).includes(below.full_path));
    for (const ns of res.json()) {
      assert.equal('plan' in ns, ns.kind === 'user');
      assert.equal('members_count_with_descendants' in ns, false);
    }
  });

  test('an owner sees the owner fields of their groups', async () => {
    const res = await t.get('/api/v4/namespaces', { token: tokens.owner });
    expectStatus(res, 200);
    expectEntities(res.json(), NamespaceEntity);
    assert.deepEqual(res.json().slice(1), [groupNamespace(groups.private as NamespaceRow, true), groupNamespace(groups.internal as NamespaceRow, true), groupNamespace(groups.public as NamespaceRow, true)]);
  });

  test('owned_only: the own namespace and the groups they own', async () => {
    const owner = await t.user({ username: 'ownsone' });
    await createGroup(t, { path: 'owned-one', members: [[owner.user.id, ACCESS.OWNER]] });
    await createGroup(t, { path: 'maintained', members: [[owner.user.id, ACCESS.MAINTAINER]] });
    assert.deepEqual(listed(await t.get('/api/v4/namespaces?owned_only=true', { token: owner.token })), ['ownsone', 'owned-one']);
    assert.deepEqual(listed(await t.get('/api/v4/namespaces', { token: owner.token })), ['ownsone', 'owned-one', 'maintained']);
  });

  test('search: path or name', async () => {
    const res = await t.get('/api/v4/namespaces?search=intern', { token: tokens.guest });
    expectStatus(res, 200);
    expectEntities(res.json(), NamespaceEntity);
    assert.deepEqual(listed(res), ['ns-internal']);
    assert.deepEqual(listed(await t.get('/api/v4/namespaces?search=GUEST', { token: tokens.guest })), ['guest']);
  });

  test('search as an administrator: every namespace, kept current through renames and deletions', async () => {
    const admin = (search: string) => t.get('/api/v4/namespaces', { token: ROOT_TOKEN, query: { search, per_page: '100' } });
    const group = await createGroup(t, { path: 'zebra-crossing', name: 'Striped Road' });
    assert.deepEqual(listed(await admin('ZEBRA')), ['zebra-crossing']);
    assert.deepEqual(listed(await admin('striped road')), ['zebra-crossing']);
    assert.deepEqual(listed(await admin('"ped roa"')), ['zebra-crossing']);
    // A word must be in one column: "zebra" is in the path, "road" in the name only.
    assert.deepEqual(listed(await admin('zebra road')), []);
    assert.deepEqual(listed(await admin('50%')), []);
    expectStatus(await t.put(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN, body: { path: 'okapi-crossing', name: 'Spotted Road' } }), 200);
    assert.deepEqual(listed(await admin('zebra')), []);
    assert.deepEqual(listed(await admin('okapi')), ['okapi-crossing']);
    const res = await admin('spotted');
    expectStatus(res, 200);
    expectEntities(res.json(), NamespaceEntity);
    assert.equal(res.headers['x-total'], '1');
    expectStatus(await t.del(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN }), 202);
    assert.deepEqual(listed(await admin('okapi')), []);
  });

  test('an administrator: every namespace, paginated', async () => {
    const res = await t.get('/api/v4/namespaces?per_page=3', { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntities(res.json(), NamespaceEntity);
    assert.equal(res.json().length, 3);
    assert.equal(listed(res)[0], 'root');
    assert.equal(res.headers['x-total'], String(await t.count('namespaces')));
    assert.equal(res.headers['x-next-page'], '2');
    for (const ns of res.json()) assert.equal(ns.plan, 'default');
  });

  test('a parameter of the wrong type: 400', async () => {
    expectError(await t.get('/api/v4/namespaces?owned_only=sure', { token: tokens.guest }), 400, { error: 'owned_only is invalid' });
  });
});

describe('GET /namespaces/:namespace/exists', () => {
  let parent: NamespaceRow;
  before(async () => {
    parent = await createGroup(t, { path: 'my-group', name: 'My Group' });
    await createGroup(t, { path: 'my-group1', name: 'Something else' });
    await createGroup(t, { path: 'other', name: 'my-group2' });
    await createGroup(t, { path: 'child', parent });
  });

  const exists = (path: string, query = '', token = tokens.guest) => t.get(`/api/v4/namespaces/${path}/exists${query}`, { token });

  const cases: [string, string, string, { exists: boolean; suggests: string[] }][] = [
    ['a free path', 'free-path', '', { exists: false, suggests: [] }],
    ['a taken path: the first free one after it (paths and names count)', 'my-group', '', { exists: true, suggests: ['my-group3'] }],
    ['in another case', 'MY-GROUP1', '', { exists: true, suggests: ['MY-GROUP11'] }],
    ['a username', 'guest', '', { exists: true, suggests: ['guest1'] }],
    ['a subgroup path at the top level', 'child', '', { exists: false, suggests: [] }],
    ['a subgroup path under its parent', 'child', '?parent_id=PARENT', { exists: true, suggests: ['child1'] }],
    ['a top-level path under a parent', 'my-group', '?parent_id=PARENT', { exists: false, suggests: [] }],
  ];
  for (const [label, path, query, expected] of cases) {
    test(label, async () => {
      const res = await exists(path, query.replace('PARENT', String(parent.id)));
      expectStatus(res, 200);
      expectEntity(res.json(), NamespaceExistenceEntity);
      assert.deepEqual(res.json(), expected);
    });
  }

  test('anonymous: 401; blocked: 403; a bad parent_id: 400', async () => {
    expectError(await t.get('/api/v4/namespaces/my-group/exists'), 401, UNAUTHORIZED);
    expectError(await exists('my-group', '', tokens.blocked), 403, BLOCKED);
    expectError(await exists('my-group', '?parent_id=x'), 400, { error: 'parent_id is invalid' });
  });

  test('the answer is a bare object, for every signed-in caller', async () => {
    const res = await exists('my-group', '', tokens.external);
    expectStatus(res, 200);
    expectEntity(res.json(), Type.Object({ exists: Type.Literal(true), suggests: Type.Array(Type.String(), { minItems: 1, maxItems: 1 }) }));
  });
});
