// GET /groups, GET /groups/:id, subgroups and descendant groups: who sees which group, every
// filter and order, pagination (offset and the anonymous keyset), and the detail's projects.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createGroup, createProject } from '../../../test/factories.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { GroupDetailEntity, GroupEntity, GroupStatisticsEntity } from './groups.schemas.ts';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let ext: TestUser;
const g: Record<string, NamespaceRow> = {};
let holderProject: ProjectRow;

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
  ext = await t.user({ username: 'ext', external: true });
  g.pub = await createGroup(t, { path: 'pub', visibility: 'public' });
  g.pubkid = await createGroup(t, { path: 'pubkid', visibility: 'public', parent: g.pub });
  g.int = await createGroup(t, { path: 'int', visibility: 'internal' });
  g.priv = await createGroup(t, { path: 'priv', members: [[alice.user.id, ACCESS.DEVELOPER]] });
  g.privkid = await createGroup(t, { path: 'privkid', parent: g.priv });
  g.anc = await createGroup(t, { path: 'anc' });
  g.mid = await createGroup(t, { path: 'mid', parent: g.anc, members: [[alice.user.id, ACCESS.OWNER]] });
  g.leaf = await createGroup(t, { path: 'leaf', parent: g.mid });
  g.holder = await createGroup(t, { path: 'holder' });
  holderProject = await createProject(t, { namespace: g.holder, members: [[alice.user.id, ACCESS.REPORTER]] });
  g.hidden = await createGroup(t, { path: 'hidden' });
});
after(() => t.close());

const paths = (res: { json(): unknown }) => (res.json() as { full_path: string }[]).map((x) => x.full_path);

async function list(query: string, token?: string): Promise<string[]> {
  const res = await t.get(`/api/v4/groups${query}`, { token });
  expectStatus(res, 200);
  expectEntities(res.json(), GroupEntity);
  return paths(res);
}

describe('GET /groups: who sees what', () => {
  const everything = ['anc', 'anc/mid', 'anc/mid/leaf', 'hidden', 'holder', 'int', 'priv', 'priv/privkid', 'pub', 'pub/pubkid'];
  const cases: [string, string, () => string | undefined, string[]][] = [
    ['anonymous: public groups', '', () => undefined, ['pub', 'pub/pubkid']],
    ['a user without memberships: none by default', '', () => bob.token, []],
    ['a user without memberships, all_available: internal and public', '?all_available=true', () => bob.token, ['int', 'pub', 'pub/pubkid']],
    [
      'a member: the groups around their memberships (ancestors, descendants, groups of their projects)',
      '',
      () => alice.token,
      ['anc', 'holder', 'anc/mid/leaf', 'anc/mid', 'priv', 'priv/privkid'],
    ],
    [
      'a member, all_available: theirs and every internal and public group',
      '?all_available=true',
      () => alice.token,
      ['anc', 'holder', 'int', 'anc/mid/leaf', 'anc/mid', 'priv', 'priv/privkid', 'pub', 'pub/pubkid'],
    ],
    ['an external user, all_available: public groups only', '?all_available=1', () => ext.token, ['pub', 'pub/pubkid']],
    ['an external user: none by default', '', () => ext.token, []],
    ['an administrator: every group', '', () => ROOT_TOKEN, ['anc', 'hidden', 'holder', 'int', 'anc/mid/leaf', 'anc/mid', 'priv', 'priv/privkid', 'pub', 'pub/pubkid']],
    ['an administrator, all_available=false: their own memberships only', '?all_available=false', () => ROOT_TOKEN, []],
    ['owned: groups the caller is a direct Owner of', '?owned=true', () => alice.token, ['anc/mid']],
    ['owned, anonymous: nothing', '?owned=true', () => undefined, []],
    ['min_access_level: memberships at that level and their subgroups', '?min_access_level=30', () => alice.token, ['anc/mid/leaf', 'anc/mid', 'priv', 'priv/privkid']],
    ['min_access_level=40', '?min_access_level=40', () => alice.token, ['anc/mid/leaf', 'anc/mid']],
    ['top_level_only', '?all_available=true&top_level_only=true', () => alice.token, ['anc', 'holder', 'int', 'priv', 'pub']],
  ];
  for (const [label, query, token, expected] of cases) {
    test(label, async () => {
      assert.deepEqual(await list(query, token()), expected);
    });
  }
  test('the administrator list holds every group of this file', () => assert.equal(everything.length, 10));
});

describe('GET /groups: search, order, skip', () => {
  const cases: [string, string, () => string | undefined, string[]][] = [
    ['search matches the full path', '?search=kid', () => undefined, ['pub/pubkid']],
    ['search matches parents too', '?search=pub', () => undefined, ['pub', 'pub/pubkid']],
    ['search: every word must match', '?search=mid%20leaf', () => alice.token, ['anc/mid/leaf']],
    ['search, signed in', '?search=anc', () => alice.token, ['anc', 'anc/mid/leaf', 'anc/mid']],
    ['search shorter than three characters matches whole names only', '?search=an', () => alice.token, []],
    ['search of a whole short name', '?search=PUB', () => undefined, ['pub', 'pub/pubkid']],
    ['order_by=path', '?order_by=path', () => alice.token, ['anc', 'holder', 'anc/mid/leaf', 'anc/mid', 'priv', 'priv/privkid']],
    ['order_by=path&sort=desc', '?order_by=path&sort=desc', () => alice.token, ['priv/privkid', 'priv', 'anc/mid', 'anc/mid/leaf', 'holder', 'anc']],
    ['order_by=name&sort=desc', '?sort=desc', () => undefined, ['pub/pubkid', 'pub']],
    ['order_by=id', '?order_by=id', () => alice.token, ['priv', 'priv/privkid', 'anc', 'anc/mid', 'anc/mid/leaf', 'holder']],
    ['order_by=id&sort=desc', '?order_by=id&sort=desc', () => alice.token, ['holder', 'anc/mid/leaf', 'anc/mid', 'anc', 'priv/privkid', 'priv']],
    ['order_by=similarity with a search: closest first', '?order_by=similarity&search=mid', () => alice.token, ['anc/mid', 'anc/mid/leaf']],
    ['order_by=similarity without a search: by name', '?order_by=similarity', () => undefined, ['pub', 'pub/pubkid']],
  ];
  for (const [label, query, token, expected] of cases) {
    test(label, async () => {
      assert.deepEqual(await list(query, token()), expected);
    });
  }

  test('skip_groups, as an array or a comma list', async () => {
    assert.deepEqual(await list(`?all_available=true&skip_groups[]=${g.pub.id}&skip_groups[]=${g.int.id}`, bob.token), ['pub/pubkid']);
    assert.deepEqual(await list(`?all_available=true&skip_groups=${g.pub.id},${g.pubkid.id}`, bob.token), ['int']);
  });

  const invalid: [string, string][] = [
    ['?order_by=created_at', 'order_by does not have a valid value'],
    ['?sort=up', 'sort does not have a valid value'],
    ['?min_access_level=15', 'min_access_level does not have a valid value'],
    ['?owned=perhaps', 'owned is invalid'],
    ['?skip_groups=a,b', 'skip_groups is invalid'],
    ['?per_page=0', 'per_page has a value not allowed'],
  ];
  for (const [query, error] of invalid) {
    test(`${query}: 400 ${error}`, async () => {
      expectError(await t.get(`/api/v4/groups${query}`, { token: alice.token }), 400, { error });
    });
  }
});

describe('GET /groups: administrator extras', () => {
  before(async () => {
    const at = t.deps.now().toISOString();
    await t.deps.db.insertInto('group_custom_attributes').values({ group_id: g.pub.id, key: 'tier', value: 'gold', created_at: at, updated_at: at }).execute();
    await t.deps.db
      .insertInto('project_statistics')
      .values({ project_id: holderProject.id, storage_size: 100, repository_size: 60, build_artifacts_size: 40 })
      .execute();
  });

  test('statistics=true: the sizes of the projects in each group', async () => {
    const res = await t.get('/api/v4/groups?statistics=true&search=holder', { token: ROOT_TOKEN });
    expectStatus(res, 200);
    const [holder] = res.json();
    expectEntity(holder, GroupEntity);
    expectEntity(holder.statistics, GroupStatisticsEntity);
    assert.deepEqual(holder.statistics, {
      storage_size: 100,
      repository_size: 60,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 40,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
      uploads_size: 0,
    });
    const empty = (await t.get('/api/v4/groups?statistics=true&search=hidden', { token: ROOT_TOKEN })).json();
    assert.equal(empty[0].statistics.storage_size, 0);
  });

  test('statistics and custom attributes are for administrators only', async () => {
    const [holder] = (await t.get('/api/v4/groups?statistics=true&with_custom_attributes=true&search=holder', { token: alice.token })).json();
    expectEntity(holder, GroupEntity);
    assert.equal('statistics' in holder, false);
    assert.equal('custom_attributes' in holder, false);
    assert.deepEqual(await list('?custom_attributes[tier]=gold', undefined), ['pub', 'pub/pubkid']);
  });

  test('with_custom_attributes and the custom_attributes filter', async () => {
    const res = await t.get('/api/v4/groups?with_custom_attributes=true&custom_attributes[tier]=gold', { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntities(res.json(), GroupEntity);
    assert.deepEqual(res.json().map((x: { full_path: string; custom_attributes: unknown }) => [x.full_path, x.custom_attributes]), [['pub', [{ key: 'tier', value: 'gold' }]]]);
    const shown = (await t.get(`/api/v4/groups/${g.pub.id}?with_custom_attributes=true`, { token: ROOT_TOKEN })).json();
    expectEntity(shown, GroupDetailEntity);
    assert.deepEqual(shown.custom_attributes, [{ key: 'tier', value: 'gold' }]);
  });
});

describe('GET /groups: pagination', () => {
  test('offset pages with the platform headers', async () => {
    const res = await t.get('/api/v4/groups?per_page=2&page=2&all_available=true', { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), GroupEntity);
    assert.deepEqual(paths(res), ['int', 'anc/mid/leaf']);
    assert.equal(res.headers['x-total'], '9');
    assert.equal(res.headers['x-total-pages'], '5');
    assert.equal(res.headers['x-page'], '2');
    assert.equal(res.headers['x-next-page'], '3');
    assert.equal(res.headers['x-prev-page'], '1');
    // Every parameter is echoed, the declared defaults too, keys sorted.
    const at = (page: number) =>
      `http://quarry.test/api/v4/groups?all_available=true&order_by=name&owned=false&page=${page}&per_page=2&sort=asc&statistics=false&with_custom_attributes=false`;
    assert.equal(res.headers.link, `<${at(1)}>; rel="prev", <${at(3)}>; rel="next", <${at(1)}>; rel="first", <${at(5)}>; rel="last"`);
  });

  test('anonymous keyset pages by name walk every public group', async () => {
    const seen: string[] = [];
    let url: string | null = '/api/v4/groups?pagination=keyset&order_by=name&sort=asc&per_page=1';
    while (url) {
      const res = await t.get(url);
      expectStatus(res, 200);
      expectEntities(res.json(), GroupEntity);
      seen.push(...paths(res));
      assert.equal(res.headers['x-total'], undefined);
      const next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''));
      url = next ? next[1].replace('http://quarry.test', '') : null;
    }
    assert.deepEqual(seen, ['pub', 'pub/pubkid']);
  });

  test('anonymous keyset in another order: 405', async () => {
    for (const query of ['order_by=id', 'order_by=name&sort=desc', 'order_by=path']) {
      expectError(await t.get(`/api/v4/groups?pagination=keyset&${query}`), 405, { error: 'Keyset pagination is not yet available for this type of request' });
    }
  });

  test('signed-in callers asking for keyset get offset pages, the links still echoing the parameter', async () => {
    const res = await t.get('/api/v4/groups?pagination=keyset&order_by=id&per_page=2', { token: alice.token });
    expectStatus(res, 200);
    expectEntities(res.json(), GroupEntity);
    assert.equal(res.headers['x-total'], '6');
    const at = (page: number) =>
      `http://quarry.test/api/v4/groups?order_by=id&owned=false&page=${page}&pagination=keyset&per_page=2&sort=asc&statistics=false&with_custom_attributes=false`;
    assert.equal(res.headers.link, `<${at(2)}>; rel="next", <${at(1)}>; rel="first", <${at(3)}>; rel="last"`);
  });

  test('anonymous offsets are capped; signed-in ones are not', async () => {
    expectError(await t.get('/api/v4/groups?page=2501&per_page=20'), 405, {
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Group. Remaining records can be retrieved using keyset pagination.',
    });
    const res = await t.get('/api/v4/groups?page=2501&per_page=20', { token: alice.token });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), []);
  });
});

describe('GET /groups/:id', () => {
  let projects: ProjectRow[];
  before(async () => {
    projects = [
      await createProject(t, { namespace: g.pub, path: 'open', visibility: 'public' }),
      await createProject(t, { namespace: g.pub, path: 'inside', visibility: 'internal' }),
      await createProject(t, { namespace: g.pub, path: 'secret', visibility: 'private' }),
      await createProject(t, { namespace: g.pubkid, path: 'below', visibility: 'public' }),
    ];
  });

  const projectPaths = (body: { projects: { path_with_namespace: string }[] }) => body.projects.map((p) => p.path_with_namespace);

  test('by id, by path in any case, by URL-encoded full path', async () => {
    for (const id of [String(g.pub.id), 'PUB', encodeURIComponent('pub/pubkid')]) {
      const res = await t.get(`/api/v4/groups/${id}`, { token: alice.token });
      expectStatus(res, 200);
      expectEntity(res.json(), GroupDetailEntity);
    }
  });

  test('the group own projects the caller may see, newest first', async () => {
    const cases: [string | undefined, string[]][] = [
      [undefined, ['pub/open']],
      [bob.token, ['pub/inside', 'pub/open']],
      [ext.token, ['pub/open']],
      [ROOT_TOKEN, ['pub/secret', 'pub/inside', 'pub/open']],
    ];
    for (const [token, expected] of cases) {
      const res = await t.get(`/api/v4/groups/${g.pub.id}`, { token });
      expectStatus(res, 200);
      expectEntity(res.json(), GroupDetailEntity);
      assert.deepEqual(projectPaths(res.json()), expected);
      assert.deepEqual(res.json().shared_projects, []);
    }
    assert.equal(projects.length, 4);
  });

  test('with_projects=false: the plain group', async () => {
    const res = await t.get(`/api/v4/groups/${g.pub.id}?with_projects=false`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), GroupEntity);
  });

  test('a group the caller may not see, or none: 404', async () => {
    for (const id of [String(g.hidden.id), 'hidden', 'no-such', '99999999', encodeURIComponent('pub/nope')]) {
      expectError(await t.get(`/api/v4/groups/${id}`, { token: bob.token }), 404, { message: '404 Group Not Found' });
    }
  });

  test('with_projects must be a boolean', async () => {
    expectError(await t.get(`/api/v4/groups/${g.pub.id}?with_projects=maybe`), 400, { error: 'with_projects is invalid' });
  });
});

describe('GET /groups/:id/subgroups and /descendant_groups', () => {
  const cases: [string, string, () => string | undefined, string[]][] = [
    ['subgroups of a public group, anonymous', `/pub/subgroups`, () => undefined, ['pub/pubkid']],
    ['subgroups, a non-member: only those around their memberships', `/pub/subgroups`, () => bob.token, []],
    ['subgroups, a non-member, all_available', `/pub/subgroups?all_available=true`, () => bob.token, ['pub/pubkid']],
    ['subgroups: direct children only', `/anc/subgroups`, () => ROOT_TOKEN, ['anc/mid']],
    ['subgroups, a member of the group', `/anc%2Fmid/subgroups`, () => alice.token, ['anc/mid/leaf']],
    ['descendant groups: every group below', `/anc/descendant_groups`, () => ROOT_TOKEN, ['anc/mid/leaf', 'anc/mid']],
    ['descendant groups with a search', `/anc/descendant_groups?search=leaf`, () => ROOT_TOKEN, ['anc/mid/leaf']],
    ['subgroups of a private group, administrator', `/priv/subgroups`, () => ROOT_TOKEN, ['priv/privkid']],
    ['top_level_only lists top-level groups, as on the platform', `/pub/subgroups?top_level_only=true`, () => undefined, ['pub']],
  ];
  for (const [label, path, token, expected] of cases) {
    test(label, async () => {
      const res = await t.get(`/api/v4/groups${path}`, { token: token() });
      expectStatus(res, 200);
      expectEntity(res.json(), Type.Array(GroupEntity));
      assert.deepEqual(paths(res), expected);
    });
  }

  test('keyset is not offered there: offset pages whatever is asked', async () => {
    const res = await t.get('/api/v4/groups/pub/subgroups?pagination=keyset&order_by=id');
    expectStatus(res, 200);
    expectEntities(res.json(), GroupEntity);
    assert.equal(res.headers['x-total'], '1');
    assert.match(String(res.headers.link), /[?&]pagination=keyset&/);
  });

  test('of a group the caller may not see: 404', async () => {
    expectError(await t.get('/api/v4/groups/hidden/subgroups', { token: bob.token }), 404, { message: '404 Group Not Found' });
    expectError(await t.get('/api/v4/groups/anc/descendant_groups'), 404, { message: '404 Group Not Found' });
  });

  test('a member of a subgroup lists the private parent but may not read it', async () => {
    assert.ok((await list('', alice.token)).includes('anc'));
    expectError(await t.get('/api/v4/groups/anc/subgroups', { token: alice.token }), 404, { message: '404 Group Not Found' });
    expectError(await t.get('/api/v4/groups/anc', { token: alice.token }), 404, { message: '404 Group Not Found' });
  });
});
