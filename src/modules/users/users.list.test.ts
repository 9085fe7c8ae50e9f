// GET /users: every filter, ordering, the anonymous rule, keyset pagination, and the query count.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createGroup, createProject, personalNamespace } from '../../../test/factories.ts';
import { expectEntities, expectError, expectStatus } from '../../../test/matchers.ts';
import { fewestStatementsDuring } from '../../../test/sql-spy.ts';
import type { UserUpdate } from '../../db/schema.ts';
import { UserAdminEntity, UserBasicEntity } from './users.schemas.ts';

let t: TestApp;
const u: Record<string, TestUser> = {};

async function make(key: string, attrs: Record<string, unknown>, row: UserUpdate = {}): Promise<void> {
  u[key] = await t.user(attrs);
  if (Object.keys(row).length > 0) {
    await t.deps.db.updateTable('users').set(row).where('id', '=', u[key].user.id).execute();
  }
}

const ids = (res: LightMyRequestResponse): number[] => res.json().map((x: { id: number }) => x.id);
const idsOf = (...keys: string[]): number[] => keys.map((k) => (k === 'root' ? 1 : u[k].user.id));
const sortedDesc = (list: number[]) => [...list].sort((a, b) => b - a);
const ALL = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'ghost', 'pbot', 'lena', 'ivan', 'tomB', 'tomA', 'tomD', 'tomC', 'al'];

/** Every user of the fixture and root, newest first, minus the given ones. */
const allBut = (...except: string[]): number[] => sortedDesc(idsOf('root', ...ALL.filter((k) => !except.includes(k))));

before(async () => {
  t = await createTestApp();
  await make('alice', { username: 'alice_l', name: 'Alice Liddell', email: 'alice@wonder.test' }, { created_at: '2020-01-01T00:00:00.000Z' });
  await make('bob', { username: 'Bob.Builder', name: 'Bob Builder' }, { created_at: '2021-01-01T00:00:00.000Z' });
  await make('carol', { username: 'carol_ext', name: 'Carol External', external: true });
  await make('dave', { username: 'dave_blk', name: 'Dave Blocked' }, { state: 'blocked' });
  await make('erin', { username: 'erin_adm', name: 'Erin Admin', admin: true });
  await make('frank', { username: 'frank_2fa', name: 'Frank Factor' }, { two_factor_enabled: true });
  await make('ghost', { username: 'ghost_int', name: 'Ghost User' }, { user_type: 'ghost' });
  await make('pbot', { username: 'project_1_bot', name: 'Project Bot' }, { user_type: 'project_bot' });
  await make('lena', { username: 'lena_ldap', name: 'Lena Ldap' }, { state: 'ldap_blocked' });
  await make('ivan', { username: 'ivan_id', name: 'Ivan Identity', extern_uid: 'uid-42', provider: 'ldapmain' });
  // Created in this order so that newest-first differs from the search ranking.
  await make('tomB', { username: 'tommy_b', name: 'tom' });
  await make('tomA', { username: 'tom', name: 'Tom Thumb' });
  await make('tomD', { username: 'zed_t', name: 'Zed Tom2', email: 'tom@mail.test' });
  await make('tomC', { username: 'tomas_z', name: 'Tomas Zed' });
  await make('al', { username: 'al_short', name: 'Al' });
  const at = new Date().toISOString();
  await t.deps.db
    .insertInto('user_custom_attributes')
    .values([
      { user_id: u.alice.user.id, key: 'team', value: 'red', created_at: at, updated_at: at },
      { user_id: u.alice.user.id, key: 'role', value: 'dev', created_at: at, updated_at: at },
      { user_id: u.bob.user.id, key: 'team', value: 'red', created_at: at, updated_at: at },
    ])
    .execute();
});
after(() => t.close());

const admin = (query: Record<string, string | string[]> = {}) => t.get('/api/v4/users', { token: ROOT_TOKEN, query });
const regular = (query: Record<string, string | string[]> = {}) => t.get('/api/v4/users', { token: u.alice.token, query });

describe('who may list', () => {
  test('an administrator gets the administrator form of everyone, newest first, with offset headers', async () => {
    const res = await admin({ per_page: '100' });
    expectStatus(res, 200);
    expectEntities(res.json(), UserAdminEntity);
    assert.deepEqual(ids(res), allBut());
    assert.equal(res.headers['x-total'], String(ALL.length + 1));
    assert.equal(res.headers['x-total-pages'], '1');
    assert.equal(res.headers['x-page'], '1');
    assert.equal(res.headers['x-per-page'], '100');
    assert.equal(res.headers['x-next-page'], '');
    assert.ok(!res.json().some((x: Record<string, unknown>) => 'custom_attributes' in x));
    const ivan = res.json().find((x: { id: number }) => x.id === u.ivan.user.id);
    assert.deepEqual(ivan.identities, [{ provider: 'ldapmain', extern_uid: 'uid-42' }]);
    assert.equal(ivan.is_admin, false);
  });

  test('a regular user gets the basic form and never sees external users', async () => {
    const res = await regular({ per_page: '100' });
    expectStatus(res, 200);
    expectEntities(res.json(), UserBasicEntity);
    assert.deepEqual(ids(res), allBut('carol'));
  });

  test('an external user lists like a regular one, without external users (itself included)', async () => {
    const res = await t.get('/api/v4/users', { token: u.carol.token, query: { per_page: '100' } });
    expectStatus(res, 200);
    expectEntities(res.json(), UserBasicEntity);
    assert.deepEqual(ids(res), allBut('carol'));
  });

  test('anonymous callers must name a username', async () => {
    expectError(await t.get('/api/v4/users'), 403, { message: '403 Forbidden - Not authorized to access /api/v4/users' });
    expectError(await t.get('/api/v4/users', { query: { username: '' } }), 403, {
      message: '403 Forbidden - Not authorized to access /api/v4/users',
    });
    expectError(await t.get('/api/v4/users', { query: { search: 'alice' } }), 403, {
      message: '403 Forbidden - Not authorized to access /api/v4/users',
    });
  });

  test('anonymous callers with a username get at most that user, in the basic form', async () => {
    const res = await t.get('/api/v4/users', { query: { username: 'ALICE_L' } });
    expectStatus(res, 200);
    expectEntities(res.json(), UserBasicEntity);
    assert.deepEqual(res.json(), [
      { id: u.alice.user.id, username: 'alice_l', name: 'Alice Liddell', state: 'active', avatar_url: null, web_url: 'http://quarry.test/alice_l' },
    ]);
    assert.deepEqual(ids(await t.get('/api/v4/users', { query: { username: 'nobody' } })), []);
  });

  test('a blocked user is refused', async () => {
    const blocked = await t.user();
    await t.post(`/api/v4/users/${blocked.user.id}/block`, { token: ROOT_TOKEN });
    expectError(await t.get('/api/v4/users', { token: blocked.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
    await t.del(`/api/v4/users/${blocked.user.id}`, { token: ROOT_TOKEN });
  });

  test('a read_user token may list', async () => {
    const reader = await t.user({}, ['read_user']);
    const res = await t.get('/api/v4/users', { token: reader.token, query: { username: 'alice_l' } });
    expectStatus(res, 200);
    assert.deepEqual(ids(res), idsOf('alice'));
    await t.del(`/api/v4/users/${reader.user.id}`, { token: ROOT_TOKEN });
  });
});

describe('search', () => {
  test('matches name and username words of three or more characters, case-insensitively', async () => {
    assert.deepEqual(ids(await admin({ search: 'liddell' })), idsOf('alice'));
    assert.deepEqual(ids(await admin({ search: 'BUILDER' })), idsOf('bob'));
    assert.deepEqual(ids(await admin({ search: 'ice_' })), idsOf('alice'));
    // Every word must match: "bob" and "builder" both in Bob's name.
    assert.deepEqual(ids(await admin({ search: 'builder bob' })), idsOf('bob'));
    assert.deepEqual(ids(await admin({ search: 'builder alice' })), []);
  });

  test('a leading @ is dropped, and @ alone matches nobody', async () => {
    assert.deepEqual(ids(await admin({ search: '@alice_l' })), idsOf('alice'));
    assert.deepEqual(ids(await regular({ search: '@' })), []);
  });

  test('a term shorter than three characters must equal a name or username', async () => {
    assert.deepEqual(ids(await admin({ search: 'al' })), idsOf('al'));
    assert.deepEqual(ids(await admin({ search: 'AL' })), idsOf('al'));
  });

  test('an email matches only exactly', async () => {
    assert.deepEqual(ids(await admin({ search: 'ALICE@wonder.test' })), idsOf('alice'));
    assert.deepEqual(ids(await admin({ search: 'wonder.test' })), []);
  });

  test('LIKE wildcards in the term are taken literally', async () => {
    assert.deepEqual(ids(await admin({ search: '%%%' })), []);
    assert.deepEqual(ids(await admin({ search: '___' })), []);
  });

  test('for others: exact name first, then exact username, then the rest by name', async () => {
    assert.deepEqual(ids(await regular({ search: 'tom' })), idsOf('tomB', 'tomA', 'tomC', 'tomD'));
    // An exact email ranks after exact names and usernames.
    assert.deepEqual(ids(await regular({ search: 'TOM@mail.test' })), idsOf('tomD'));
  });

  test('an administrator’s search follows order_by and sort, id descending by default; a regular user’s order is ignored', async () => {
    for (const res of [await admin({ search: 'tom' }), await admin({ search: 'tom', per_page: '2' })]) {
      expectStatus(res, 200);
      expectEntities(res.json(), UserAdminEntity);
    }
    assert.deepEqual(ids(await admin({ search: 'tom' })), idsOf('tomC', 'tomD', 'tomA', 'tomB'));
    assert.deepEqual(ids(await admin({ search: 'tom', sort: 'asc' })), idsOf('tomB', 'tomA', 'tomD', 'tomC'));
    assert.deepEqual(ids(await admin({ search: 'tom', order_by: 'id', sort: 'asc' })), idsOf('tomB', 'tomA', 'tomD', 'tomC'));
    assert.deepEqual(ids(await admin({ search: 'tom', order_by: 'username', sort: 'asc' })), idsOf('tomA', 'tomC', 'tomB', 'tomD'));
    assert.deepEqual(ids(await regular({ search: 'tom', order_by: 'id', sort: 'asc' })), idsOf('tomB', 'tomA', 'tomC', 'tomD'));
  });

  test('an administrator’s search pages by keyset like any other ordered list', async () => {
    const first = await admin({ search: 'tom', pagination: 'keyset', per_page: '3', order_by: 'id', sort: 'desc' });
    expectStatus(first, 200);
    expectEntities(first.json(), UserAdminEntity);
    assert.deepEqual(ids(first), idsOf('tomC', 'tomD', 'tomA'));
    const next = new URL((/^<([^>]+)>; rel="next"$/.exec(String(first.headers.link)) ?? assert.fail('no next link'))[1]);
    assert.equal(next.searchParams.get('search'), 'tom');
    assert.deepEqual(ids(await t.get(`${next.pathname}${next.search}`, { token: ROOT_TOKEN })), idsOf('tomB'));
  });

  test('a term longer than SQLite takes as a LIKE pattern is searched all the same', async () => {
    for (const search of ['x'.repeat(60_000), `alice ${'y'.repeat(60_000)}`, 'al '.repeat(30_000)]) {
      const res = await admin({ search });
      expectStatus(res, 200);
      assert.deepEqual(ids(res), []);
    }
  });

  test('a search of spaces is no search', async () => {
    assert.deepEqual(ids(await admin({ search: '  ', per_page: '100' })), allBut());
  });

  test('search works for anonymous callers only together with a username', async () => {
    assert.deepEqual(ids(await t.get('/api/v4/users', { query: { username: 'tom', search: 'tom' } })), idsOf('tomA'));
  });
});

describe('filters', () => {
  test('username matches exactly, ignoring case', async () => {
    assert.deepEqual(ids(await regular({ username: 'bob.BUILDER' })), idsOf('bob'));
    assert.deepEqual(ids(await regular({ username: 'bob' })), []);
  });

  test('active=true keeps active people and project bots, not internal users', async () => {
    assert.deepEqual(ids(await admin({ active: 'true', per_page: '100' })), allBut('dave', 'lena', 'ghost'));
    assert.deepEqual(ids(await admin({ active: 'false', per_page: '100' })), allBut());
  });

  test('blocked=true matches blocked and LDAP-blocked users', async () => {
    assert.deepEqual(ids(await admin({ blocked: 'true' })), idsOf('lena', 'dave'));
    assert.deepEqual(ids(await regular({ blocked: 'yes' })), idsOf('lena', 'dave'));
  });

  test('external=true is for administrators: 401 anonymous, 403 others', async () => {
    assert.deepEqual(ids(await admin({ external: 'true' })), idsOf('carol'));
    expectError(await regular({ external: 'true' }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/users', { query: { external: 'true', username: 'alice_l' } }), 401, { message: '401 Unauthorized' });
    assert.deepEqual(ids(await regular({ external: 'false', per_page: '100' })), allBut('carol'));
  });

  test('exclude_external=true drops external users', async () => {
    assert.deepEqual(ids(await admin({ exclude_external: 'true', per_page: '100' })), allBut('carol'));
  });

  test('exclude_internal=true drops internal users but keeps project bots', async () => {
    assert.deepEqual(ids(await admin({ exclude_internal: 'true', per_page: '100' })), allBut('ghost'));
  });

  test('admins=true: administrators only, silently ignored for others', async () => {
    assert.deepEqual(ids(await admin({ admins: 'true' })), idsOf('erin', 'root'));
    assert.deepEqual(ids(await regular({ admins: 'true', per_page: '100' })), allBut('carol'));
  });

  test('without_projects=true: users who reach no project, silently ignored for others', async () => {
    const group = await createGroup(t, { members: [[u.bob.user.id, 30]] });
    await createProject(t, { namespace: group });
    await createProject(t, { creatorId: u.alice.user.id, namespace: await personalNamespace(t, u.alice.user.id) });
    assert.deepEqual(ids(await admin({ without_projects: 'true', per_page: '100' })), allBut('alice', 'bob'));
    assert.deepEqual(ids(await regular({ without_projects: 'true', per_page: '100' })), allBut('carol'));
    await t.deps.db.deleteFrom('projects').execute();
    await t.deps.db.deleteFrom('members').execute();
    await t.deps.db.deleteFrom('namespaces').where('id', '=', group.id).execute();
  });

  test('two_factor: administrators only, silently ignored for others', async () => {
    assert.deepEqual(ids(await admin({ two_factor: 'enabled' })), idsOf('frank'));
    assert.deepEqual(ids(await admin({ two_factor: 'disabled', per_page: '100' })), allBut('frank'));
    assert.deepEqual(ids(await regular({ two_factor: 'enabled', per_page: '100' })), allBut('carol'));
    expectError(await admin({ two_factor: 'maybe' }), 400, { error: 'two_factor does not have a valid value' });
  });

  test('created_before / created_after: administrators only, silently ignored for others', async () => {
    assert.deepEqual(ids(await admin({ created_before: '2020-06-01T00:00:00Z' })), idsOf('alice'));
    assert.deepEqual(ids(await admin({ created_after: '2020-06-01T00:00:00Z', created_before: '2021-06-01T00:00:00Z' })), idsOf('bob'));
    assert.deepEqual(ids(await regular({ created_before: '2020-06-01T00:00:00Z', per_page: '100' })), allBut('carol'));
    expectError(await admin({ created_after: 'yesterday-ish' }), 400, { error: 'created_after is invalid' });
  });

  test('extern_uid with provider finds the identity; both or neither', async () => {
    assert.deepEqual(ids(await admin({ extern_uid: 'uid-42', provider: 'ldapmain' })), idsOf('ivan'));
    assert.deepEqual(ids(await admin({ extern_uid: 'uid-42', provider: 'github' })), []);
    expectError(await admin({ extern_uid: 'uid-42' }), 400, { error: 'extern_uid, provider provide all or none of parameters' });
    expectError(await admin({ provider: 'ldapmain' }), 400, { error: 'extern_uid, provider provide all or none of parameters' });
    expectError(await regular({ extern_uid: 'uid-42', provider: 'ldapmain' }), 403, { message: '403 Forbidden' });
    expectError(await t.get('/api/v4/users', { query: { extern_uid: 'uid-42', provider: 'ldapmain', username: 'ivan_id' } }), 401, {
      message: '401 Unauthorized',
    });
  });

  test('custom_attributes[key]=value: every pair must match; ignored for non-administrators', async () => {
    assert.deepEqual(ids(await admin({ 'custom_attributes[team]': 'red' })), idsOf('bob', 'alice'));
    assert.deepEqual(ids(await admin({ 'custom_attributes[team]': 'red', 'custom_attributes[role]': 'dev' })), idsOf('alice'));
    assert.deepEqual(ids(await admin({ 'custom_attributes[team]': 'blue' })), []);
    assert.deepEqual(ids(await regular({ 'custom_attributes[team]': 'red', per_page: '100' })), allBut('carol'));
  });

  test('with_custom_attributes=true adds them for administrators only', async () => {
    const res = await admin({ with_custom_attributes: 'true', per_page: '100' });
    expectStatus(res, 200);
    expectEntities(res.json(), UserAdminEntity);
    const byId = new Map(res.json().map((x: { id: number }) => [x.id, x]));
    assert.deepEqual((byId.get(u.alice.user.id) as { custom_attributes: unknown }).custom_attributes, [
      { key: 'team', value: 'red' },
      { key: 'role', value: 'dev' },
    ]);
    assert.deepEqual((byId.get(u.bob.user.id) as { custom_attributes: unknown }).custom_attributes, [{ key: 'team', value: 'red' }]);
    assert.deepEqual((byId.get(1) as { custom_attributes: unknown }).custom_attributes, []);

    const others = await regular({ with_custom_attributes: 'true' });
    expectEntities(others.json(), UserBasicEntity);
    assert.ok(!others.json().some((x: Record<string, unknown>) => 'custom_attributes' in x));
  });

  test('bad parameter values answer 400 with the parameter’s name', async () => {
    expectError(await admin({ active: 'maybe' }), 400, { error: 'active is invalid' });
    expectError(await admin({ order_by: 'email' }), 400, { error: 'order_by does not have a valid value' });
    expectError(await admin({ sort: 'up' }), 400, { error: 'sort does not have a valid value' });
    expectError(await admin({ per_page: '0' }), 400, { error: 'per_page has a value not allowed' });
    expectError(await admin({ page: 'x' }), 400, { error: 'page is invalid' });
  });
});

describe('ordering', () => {
  test('an administrator may order by any listed column, with an id tie-breaker', async () => {
    assert.deepEqual(ids(await admin({ sort: 'asc', per_page: '100' })), allBut().reverse());
    assert.deepEqual(ids(await admin({ order_by: 'created_at', sort: 'asc', per_page: '100' })).slice(0, 2), idsOf('alice', 'bob'));
    assert.deepEqual(ids(await admin({ order_by: 'created_at', sort: 'desc', per_page: '100' })).slice(-2), idsOf('bob', 'alice'));
    assert.deepEqual(ids(await admin({ admins: 'true', order_by: 'name', sort: 'asc' })), idsOf('root', 'erin'));
    assert.deepEqual(ids(await admin({ admins: 'true', order_by: 'name', sort: 'desc' })), idsOf('erin', 'root'));
  });

  test('order_by and sort from others are silently ignored', async () => {
    assert.deepEqual(ids(await regular({ order_by: 'username', sort: 'asc', per_page: '100' })), allBut('carol'));
  });
});

describe('keyset pagination', () => {
  async function walk(token: string, query: Record<string, string>): Promise<number[]> {
    const seen: number[] = [];
    let res = await t.get('/api/v4/users', { token, query: { pagination: 'keyset', per_page: '4', ...query } });
    for (let guard = 0; guard < 20; guard += 1) {
      expectStatus(res, 200);
      assert.equal(res.headers['x-total'], undefined);
      assert.equal(res.headers['x-page'], undefined);
      seen.push(...ids(res));
      const link = res.headers.link as string | undefined;
      if (!link) return seen;
      const match = /^<([^>]+)>; rel="next"$/.exec(link);
      assert.ok(match, `unexpected Link: ${link}`);
      const next = new URL(match[1]);
      assert.equal(next.origin, 'http://quarry.test');
      assert.equal(next.searchParams.get('pagination'), 'keyset');
      res = await t.get(`${next.pathname}${next.search}`, { token });
    }
    assert.fail('keyset pagination did not end');
  }

  for (const orderBy of ['id', 'name', 'username'] as const) {
    for (const sort of ['asc', 'desc'] as const) {
      test(`order_by=${orderBy}&sort=${sort} walks the same rows as one offset page`, async () => {
        const offset = ids(await admin({ order_by: orderBy, sort, per_page: '100' }));
        assert.deepEqual(await walk(ROOT_TOKEN, { order_by: orderBy, sort }), offset);
      });
    }
  }

  test('the default is id, newest first; the last page has no Link', async () => {
    assert.deepEqual(await walk(ROOT_TOKEN, {}), allBut());
  });

  test('filters apply to every page', async () => {
    assert.deepEqual(await walk(u.alice.token, { order_by: 'id' }), allBut('carol'));
  });

  test('other orders answer 405', async () => {
    for (const orderBy of ['created_at', 'updated_at']) {
      expectError(await admin({ pagination: 'keyset', order_by: orderBy }), 405, {
        error: 'Keyset pagination is not yet available for this type of request',
      });
    }
  });

  test('a damaged cursor is a parameter error', async () => {
    expectError(await admin({ pagination: 'keyset', cursor: 'not-a-cursor' }), 400, { error: 'cursor is invalid' });
  });
});

describe('queries per page', () => {
  const queryCount = (call: () => Promise<unknown>) => fewestStatementsDuring(t, call);

  test('a page costs the same number of queries whatever its length', async () => {
    const query = { with_custom_attributes: 'true', order_by: 'id' };
    await admin(query);
    const small = await queryCount(async () => expectStatus(await admin({ ...query, per_page: '2' }), 200));
    let length = 0;
    const large = await queryCount(async () => (length = (await admin({ ...query, per_page: '100' })).json().length));
    assert.equal(length, ALL.length + 1);
    assert.equal(large, small);
    // Credentials, the page, its count, identities and custom attributes.
    assert.ok(large <= 6, `${large} queries`);
  });

  test('regular users’ pages need no batch loads at all', async () => {
    await regular();
    const count = await queryCount(async () => expectStatus(await regular({ per_page: '100' }), 200));
    assert.ok(count <= 4, `${count} queries`);
  });
});
