// GET /projects (every filter, order and rule of spec Part 2 §4.1), GET /users/:user_id/projects,
// GET /groups/:id/projects: visibility, forms, pagination (offset cap, keyset).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type MatrixWorld, buildMatrixWorld, canSee, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectError, expectStatus } from '../../../test/matchers.ts';
import { statementsDuring } from '../../../test/sql-spy.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { ProjectEntity, ProjectSimpleEntity, ProjectWithAccessEntity } from './projects.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let alice: TestUser;
let bob: TestUser;
let group: NamespaceRow;
let subgroup: NamespaceRow;
/** Named fixtures, created in this order with created_at one minute apart. */
const p: Record<string, ProjectRow> = {};

const minute = (n: number) => new Date(Date.UTC(2024, 0, 1, 0, n)).toISOString();

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  alice = await t.user({ username: 'alice', name: 'Alice' });
  bob = await t.user({ username: 'bob', name: 'Bob' });
  group = await createGroup(t, { path: 'acme', name: 'Acme Corp', visibility: 'public', members: [[bob.user.id, ACCESS.MAINTAINER]] });
  subgroup = await createGroup(t, { path: 'tools', name: 'Tools', visibility: 'public', parent: group });
  const specs: [string, Parameters<typeof createProject>[1]][] = [
    ['alpha', { path: 'alpha', name: 'Alpha Engine', visibility: 'private', creatorId: alice.user.id, topics: ['ruby', 'web'] }],
    ['beta', { path: 'beta', name: 'beta tools', visibility: 'internal', creatorId: alice.user.id, topics: ['ruby'] }],
    ['gamma', { path: 'gamma', name: 'Gamma', visibility: 'public', creatorId: alice.user.id, topics: ['web', 'go'] }],
    ['bobs', { path: 'bobs-secret', name: 'Bobs Secret', visibility: 'private', creatorId: bob.user.id }],
    ['anvil', { path: 'anvil', name: 'Anvil', visibility: 'public', namespace: group }],
    ['rocket', { path: 'rocket', name: 'Rocket', visibility: 'private', namespace: group, members: [[alice.user.id, ACCESS.GUEST]] }],
    ['hammer', { path: 'hammer', name: 'Hammer', visibility: 'internal', namespace: subgroup, archived: true }],
  ];
  for (const [i, [key, spec]] of specs.entries()) {
    const row = await createProject(t, spec);
    p[key] = await t.deps.db
      .updateTable('projects')
      .set({ created_at: minute(i), updated_at: minute(30 - i), last_activity_at: minute(i * 7 % 10) })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
  // The matrix projects predate these fixtures.
  await t.deps.db.updateTable('projects').set({ created_at: minute(-10) }).where('id', 'in', Object.values(world.projects).map((r) => r.id)).execute();
});
after(() => t.close());

const ids = (res: { json(): unknown }) => (res.json() as { id: number }[]).map((r) => r.id);
const fixtureIds = (res: { json(): unknown }) => {
  const ours = new Set(Object.values(p).map((r) => r.id));
  return ids(res).filter((id) => ours.has(id));
};
/** `null` sends no credentials. */
const list = (query: Record<string, string> = {}, token: string | null = alice.token) => t.get('/api/v4/projects', { token: token ?? undefined, query: { per_page: '100', ...query } });

describe('GET /projects: who sees what', () => {
  test('role × visibility: a project is listed for whoever may read it, in the right form', async () => {
    await runMatrix(world, {
      expect: (role) => (role === 'blocked' ? 403 : 200),
      call: ({ caller, project }) => t.get('/api/v4/projects', { token: caller.token, query: { search: project.path } }),
      verify(res, { role, visibility, project }) {
        expectEntities(res.json(), role === 'anonymous' ? ProjectSimpleEntity : ProjectWithAccessEntity);
        assert.deepEqual(ids(res), canSee(role, visibility) ? [project.id] : []);
      },
    });
  });

  test('a regular user: own, member-of, internal and public projects, newest first', async () => {
    const res = await list();
    expectStatus(res, 200);
    expectEntities(res.json(), ProjectWithAccessEntity);
    assert.deepEqual(fixtureIds(res), [p.hammer.id, p.rocket.id, p.anvil.id, p.gamma.id, p.beta.id, p.alpha.id]);
    // Lists carry import_error too (spec Part 2 §2.1), null while no import failed.
    assert.ok((res.json() as { import_error: unknown }[]).every((r) => r.import_error === null));
  });

  test('anonymous: public projects in the simple form; external users: public and their own', async () => {
    const anon = await list({}, null);
    expectEntities(anon.json(), ProjectSimpleEntity);
    assert.deepEqual(fixtureIds(anon), [p.anvil.id, p.gamma.id]);
    const external = await t.user({ external: true });
    await addMember(t, p.beta, external.user.id, ACCESS.REPORTER);
    assert.deepEqual(fixtureIds(await list({}, external.token)), [p.anvil.id, p.gamma.id, p.beta.id]);
  });

  test('an administrator sees everything', async () => {
    assert.deepEqual(fixtureIds(await list({}, ROOT_TOKEN)), [p.hammer.id, p.rocket.id, p.anvil.id, p.bobs.id, p.gamma.id, p.beta.id, p.alpha.id]);
  });

  test('simple=true gives the simple form to signed-in callers too', async () => {
    const res = await list({ simple: 'true' });
    expectEntities(res.json(), ProjectSimpleEntity);
  });

});

describe('GET /projects: filters', () => {
  test('owned: the personal namespace and groups owned', async () => {
    assert.deepEqual(fixtureIds(await list({ owned: 'true' })), [p.gamma.id, p.beta.id, p.alpha.id]);
    const owner = await t.user();
    await addMember(t, group, owner.user.id, ACCESS.OWNER);
    assert.deepEqual(fixtureIds(await list({ owned: 'true' }, owner.token)), [p.hammer.id, p.rocket.id, p.anvil.id]);
    // owned=false is the same as leaving it out.
    assert.deepEqual(fixtureIds(await list({ owned: 'false' })), fixtureIds(await list()));
  });

  test('membership and min_access_level (administrators too get only their own)', async () => {
    assert.deepEqual(fixtureIds(await list({ membership: 'true' })), [p.rocket.id, p.gamma.id, p.beta.id, p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ min_access_level: '20' })), [p.gamma.id, p.beta.id, p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ min_access_level: '40' }, bob.token)), [p.hammer.id, p.rocket.id, p.anvil.id, p.bobs.id]);
    assert.deepEqual(fixtureIds(await list({ membership: 'true' }, ROOT_TOKEN)), []);
    expectError(await list({ min_access_level: '15' }), 400, { error: 'min_access_level does not have a valid value' });
  });

  test('anonymous callers asking for owned, membership or min_access_level get nothing', async () => {
    for (const query of [{ owned: 'true' }, { membership: 'true' }, { min_access_level: '10' }] as Record<string, string>[]) {
      const res = await list(query, null);
      expectStatus(res, 200);
      assert.deepEqual(res.json(), []);
    }
    // starred is ignored for them.
    assert.deepEqual(fixtureIds(await list({ starred: 'true' }, null)), [p.anvil.id, p.gamma.id]);
  });

  test('topic: every listed topic must match, case-insensitive, comma list or array', async () => {
    assert.deepEqual(fixtureIds(await list({ topic: 'ruby' })), [p.beta.id, p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ topic: 'ruby, WEB' })), [p.alpha.id]);
    const arrays = await t.get('/api/v4/projects?topic[]=web&topic[]=go', { token: alice.token });
    assert.deepEqual(fixtureIds(arrays), [p.gamma.id]);
    assert.deepEqual(fixtureIds(await list({ topic: 'ruby,go' })), []);
  });

  test('search: words of three or more characters in name, path or description; shorter terms match whole', async () => {
    assert.deepEqual(fixtureIds(await list({ search: 'ENGINE' })), [p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ search: 'engine alpha' })), [p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ search: 'engine beta' })), []);
    // "tools" is in beta's name; the group "Tools" counts only with search_namespaces.
    assert.deepEqual(fixtureIds(await list({ search: 'tools' })), [p.beta.id]);
    assert.deepEqual(fixtureIds(await list({ search: 'tools', search_namespaces: 'true' })), [p.hammer.id, p.beta.id]);
    assert.deepEqual(fixtureIds(await list({ search: 'acme', search_namespaces: 'true' })), [p.hammer.id, p.rocket.id, p.anvil.id]);
    assert.deepEqual(fixtureIds(await list({ search: 'go' })), []);
    const tiny = await createProject(t, { path: 'go', visibility: 'public' });
    assert.deepEqual(ids(await list({ search: 'GO' })), [tiny.id]);
    await t.deps.db.deleteFrom('projects').where('id', '=', tiny.id).execute();
    assert.deepEqual(fixtureIds(await list({ search: '100%' })), []);
  });

  test('visibility, archived, id and last-activity bounds', async () => {
    assert.deepEqual(fixtureIds(await list({ visibility: 'private' })), [p.rocket.id, p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ visibility: 'internal' })), [p.hammer.id, p.beta.id]);
    assert.deepEqual(fixtureIds(await list({ archived: 'true' })), [p.hammer.id]);
    assert.deepEqual(fixtureIds(await list({ archived: 'false' })), [p.rocket.id, p.anvil.id, p.gamma.id, p.beta.id, p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ id_after: String(p.gamma.id), id_before: String(p.rocket.id) })), [p.anvil.id]);
    // last_activity_at: alpha 0, beta 7, gamma 4, bobs 1, anvil 8, rocket 5, hammer 2 (minutes).
    assert.deepEqual(fixtureIds(await list({ last_activity_after: minute(4), last_activity_before: minute(8) })), [p.rocket.id, p.beta.id]);
    expectError(await list({ visibility: 'secret' }), 400, { error: 'visibility does not have a valid value' });
    expectError(await list({ last_activity_after: 'yesterday' }), 400, { error: 'last_activity_after is invalid' });
    expectError(await list({ archived: 'perhaps' }), 400, { error: 'archived is invalid' });
  });

  test('with_issues_enabled and with_merge_requests_enabled follow what the caller may reach', async () => {
    await t.put(`/api/v4/projects/${p.gamma.id}`, { token: alice.token, body: { issues_enabled: false, merge_requests_access_level: 'private' } });
    assert.deepEqual(fixtureIds(await list({ with_issues_enabled: 'true' })), [p.hammer.id, p.rocket.id, p.anvil.id, p.beta.id, p.alpha.id]);
    // Private merge requests: the owner reaches them, a stranger does not, an administrator does.
    assert.ok(fixtureIds(await list({ with_merge_requests_enabled: 'true' })).includes(p.gamma.id));
    assert.ok(!fixtureIds(await list({ with_merge_requests_enabled: 'true' }, bob.token)).includes(p.gamma.id));
    assert.ok(fixtureIds(await list({ with_merge_requests_enabled: 'true' }, ROOT_TOKEN)).includes(p.gamma.id));
    await t.put(`/api/v4/projects/${p.gamma.id}`, { token: alice.token, body: { issues_enabled: true, merge_requests_access_level: 'enabled' } });
  });

  test('with_programming_language matches nothing until repositories are analysed', async () => {
    assert.deepEqual(fixtureIds(await list({ with_programming_language: 'Ruby' })), []);
  });

  test('statistics=true adds statistics where the caller may read them', async () => {
    const res = await list({ statistics: 'true' });
    expectEntities(res.json(), ProjectWithAccessEntity);
    const byId = new Map((res.json() as { id: number; statistics?: unknown }[]).map((r) => [r.id, r]));
    assert.ok(byId.get(p.alpha.id)?.statistics);
    // Alice is only a guest of rocket and a stranger to anvil.
    assert.equal(byId.get(p.rocket.id)?.statistics, undefined);
    assert.equal(byId.get(p.anvil.id)?.statistics, undefined);
  });

  test('custom attributes: administrators filter and read them, others are ignored', async () => {
    await t.put(`/api/v4/projects/${p.beta.id}/custom_attributes/tier`, { token: ROOT_TOKEN, body: { value: 'gold' } });
    const admin = await list({ 'custom_attributes[tier]': 'gold', with_custom_attributes: 'true' }, ROOT_TOKEN);
    assert.deepEqual(ids(admin), [p.beta.id]);
    assert.deepEqual(admin.json()[0].custom_attributes, [{ key: 'tier', value: 'gold' }]);
    const regular = await list({ 'custom_attributes[tier]': 'gold', with_custom_attributes: 'true' });
    assert.ok(ids(regular).length > 1);
    assert.ok(!('custom_attributes' in regular.json()[0]));
  });

  test('repository_storage filters for administrators only', async () => {
    assert.deepEqual(fixtureIds(await list({ repository_storage: 'nowhere' }, ROOT_TOKEN)), []);
    assert.ok(fixtureIds(await list({ repository_storage: 'nowhere' })).length > 0);
  });
});

describe('GET /projects: orders', () => {
  const order = (query: Record<string, string>, token = ROOT_TOKEN) => list(query, token).then(fixtureIds);

  test('every column, both directions, id as the tie-breaker', async () => {
    const all = await t.deps.db.selectFrom('projects').selectAll().where('id', 'in', Object.values(p).map((r) => r.id)).execute();
    const by = (key: (r: ProjectRow) => string | number) => [...all].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id)).map((r) => r.id);
    assert.deepEqual(await order({ order_by: 'id', sort: 'asc' }), by((r) => r.id));
    assert.deepEqual(await order({ order_by: 'id' }), by((r) => r.id).reverse());
    assert.deepEqual(await order({ order_by: 'name', sort: 'asc' }), by((r) => r.name.toLowerCase()));
    assert.deepEqual(await order({ order_by: 'path', sort: 'asc' }), by((r) => r.path));
    assert.deepEqual(await order({ order_by: 'created_at', sort: 'asc' }), by((r) => r.created_at));
    assert.deepEqual(await order({ order_by: 'updated_at', sort: 'asc' }), by((r) => r.updated_at));
    assert.deepEqual(await order({ order_by: 'last_activity_at', sort: 'desc' }), by((r) => r.last_activity_at).reverse());
    expectError(await list({ order_by: 'stars' }), 400, { error: 'order_by does not have a valid value' });
    expectError(await list({ sort: 'up' }), 400, { error: 'sort does not have a valid value' });
  });

  test('statistics orders: administrators only, others get the default order', async () => {
    await t.deps.db.insertInto('project_statistics').values({ project_id: p.beta.id, storage_size: 500 }).onConflict((oc) => oc.column('project_id').doUpdateSet({ storage_size: 500 })).execute();
    await t.deps.db.insertInto('project_statistics').values({ project_id: p.gamma.id, storage_size: 900 }).onConflict((oc) => oc.column('project_id').doUpdateSet({ storage_size: 900 })).execute();
    const admin = await order({ order_by: 'storage_size' });
    assert.deepEqual(admin.slice(0, 2), [p.gamma.id, p.beta.id]);
    assert.deepEqual(await order({ order_by: 'storage_size' }, alice.token), await order({}, alice.token));
  });

  test('similarity: signed-in searches only, limited to the caller’s projects', async () => {
    const res = await list({ search: 'alpha', order_by: 'similarity' });
    assert.deepEqual(ids(res), [p.alpha.id]);
    assert.deepEqual(fixtureIds(await list({ search: 'anvil', order_by: 'similarity' })), []);
    // Without a search it is the default order.
    assert.deepEqual(fixtureIds(await list({ order_by: 'similarity' })), fixtureIds(await list()));
  });
});

describe('GET /projects: X-Total', () => {
  /** The count statements run while `call` runs. */
  const countsDuring = async (call: () => Promise<unknown>) => (await statementsDuring(t, call)).filter((q) => /count\(|as "count"/i.test(q));

  test('is the number of projects listed, for every caller, with and without filters', async () => {
    const external = await t.user({ external: true });
    await addMember(t, p.alpha, external.user.id, ACCESS.DEVELOPER);
    const extra = await createProject(t, { visibility: 'internal', creatorId: bob.user.id, members: [[alice.user.id, ACCESS.DEVELOPER]] });
    try {
      assert.ok((await t.count('projects')) <= 100, 'every project fits on one page');
      const callers: [string, string | null][] = [['alice', alice.token], ['bob', bob.token], ['external', external.token], ['anonymous', null], ['admin', ROOT_TOKEN]];
      const queries: Record<string, string>[] = [
        {},
        { membership: 'true' },
        { owned: 'true' },
        { min_access_level: '30' },
        { visibility: 'internal' },
        { archived: 'false' },
        { search: 'a' },
        { order_by: 'similarity', search: 'alpha' },
        { simple: 'true', order_by: 'name' },
      ];
      const paths = ['/api/v4/projects', `/api/v4/users/${alice.user.id}/projects`, `/api/v4/groups/${group.id}/projects`];
      for (const path of paths) {
        for (const [who, token] of callers) {
          for (const query of queries) {
            const res = await t.get(path, { token: token ?? undefined, query: { per_page: '100', ...query } });
            expectStatus(res, 200);
            assert.equal(res.headers['x-total'], String(res.json().length), `${who}: ${path} ${JSON.stringify(query)}`);
          }
        }
      }
    } finally {
      await t.deps.db.deleteFrom('projects').where('id', '=', extra.id).execute();
    }
  });

  test('stays right as projects change level, are removed, or go with their group', async () => {
    const totals = async () => {
      const out: string[] = [];
      for (const token of [alice.token, bob.token, null]) out.push((await list({}, token)).headers['x-total'] as string);
      return out;
    };
    const lengths = async () => {
      const out: string[] = [];
      for (const token of [alice.token, bob.token, null]) out.push(String((await list({}, token)).json().length));
      return out;
    };
    const doomed = await createGroup(t, { path: 'doomed', name: 'Doomed', visibility: 'public' });
    const moving = await createProject(t, { path: 'moving', visibility: 'private', creatorId: bob.user.id, members: [[alice.user.id, ACCESS.REPORTER]] });
    await createProject(t, { path: 'gone-public', visibility: 'public', namespace: doomed });
    await createProject(t, { path: 'gone-internal', visibility: 'internal', namespace: doomed });
    assert.deepEqual(await totals(), await lengths());
    for (const visibility of ['public', 'internal', 'private']) {
      expectStatus(await t.put(`/api/v4/projects/${moving.id}`, { token: ROOT_TOKEN, body: { visibility } }), 200);
      assert.deepEqual(await totals(), await lengths(), visibility);
    }
    expectStatus(await t.del(`/api/v4/groups/${doomed.id}`, { token: ROOT_TOKEN }), 202);
    expectStatus(await t.del(`/api/v4/projects/${moving.id}`, { token: ROOT_TOKEN }), 202);
    assert.deepEqual(await totals(), await lengths());
  });

  test('without filters it counts from the indexes: projects by level, then the authorized ones', async () => {
    const [member] = await countsDuring(() => list());
    assert.match(member, /from "project_visibility_counts" where "visibility_level" in .*\+ \(select count\(\*\) as "count" from (\(select 1 as "one" from )?"project_authorizations" where "user_id" = .* and "visibility_level" in/s);
    const [anonymous] = await countsDuring(() => list({}, null));
    assert.match(anonymous, /^select coalesce\(sum\(projects\), 0\) as "count" from "project_visibility_counts"/);
    const [membership] = await countsDuring(() => list({ membership: 'true' }));
    assert.match(membership, /^select count\(\*\) as "count" from (\(select 1 as "one" from )?"project_authorizations" as "pa" where/);
    const [admin] = await countsDuring(() => list({}, ROOT_TOKEN));
    assert.match(admin, /^select count\(\*\) as "count" from (\(select 1 as "one" from )?"projects"( limit (\?|\$1)\) as "counted")?$/);
    // A filter (or a scope) counts the list's own query.
    const [filtered] = await countsDuring(() => list({ archived: 'false' }));
    assert.match(filtered, /exists \(select 1 from project_authorizations pa where/);
    const [scoped] = await countsDuring(() => t.get(`/api/v4/groups/${group.id}/projects`, { token: alice.token }));
    assert.match(scoped, /"namespace_id" = /);
  });
});

describe('GET /projects: pagination', () => {
  test('offset pagination with the platform headers', async () => {
    const res = await t.get('/api/v4/projects', { token: ROOT_TOKEN, query: { per_page: '2', page: '2', order_by: 'id', sort: 'asc' } });
    expectStatus(res, 200);
    assert.equal(res.json().length, 2);
    const total = Number(res.headers['x-total']);
    assert.equal(total, await t.count('projects'));
    assert.equal(res.headers['x-page'], '2');
    assert.equal(res.headers['x-per-page'], '2');
    assert.equal(res.headers['x-next-page'], '3');
    assert.equal(res.headers['x-prev-page'], '1');
    assert.equal(res.headers['x-total-pages'], String(Math.ceil(total / 2)));
    assert.match(String(res.headers.link), /rel="prev".*rel="next".*rel="first".*rel="last"/);
  });

  test('the offset cap: beyond 50,000 records is 405 for type Project', async () => {
    expectStatus(await t.get('/api/v4/projects', { query: { page: '500', per_page: '100' } }), 200);
    expectError(await t.get('/api/v4/projects', { query: { page: '501', per_page: '100' } }), 405, {
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Project. Remaining records can be retrieved using keyset pagination.',
    });
  });

  test('keyset: order_by=id only, Link rel="next" with id_before / id_after, no X-* headers', async () => {
    const all = ids(await t.get('/api/v4/projects', { token: ROOT_TOKEN, query: { order_by: 'id', sort: 'desc', per_page: '100' } }));
    const seen: number[] = [];
    let url: string | null = '/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=4';
    let pages = 0;
    while (url) {
      const res = await t.get(url, { token: ROOT_TOKEN });
      expectStatus(res, 200);
      assert.equal(res.headers['x-total'], undefined);
      assert.equal(res.headers['x-page'], undefined);
      seen.push(...ids(res));
      const link = res.headers.link as string | undefined;
      if (res.json().length > 0) assert.match(String(link), /id_before=\d+.*rel="next"/);
      const next = link ? new URL(/<([^>]+)>/.exec(link)![1]) : null;
      url = next ? next.pathname + next.search : null;
      pages += 1;
    }
    assert.deepEqual(seen, all);
    // The last full page still links on; the page after it is empty and has no link.
    assert.equal(pages, Math.ceil(all.length / 4) + 1);
    const asc = await t.get('/api/v4/projects', { token: ROOT_TOKEN, query: { pagination: 'keyset', order_by: 'id', sort: 'asc', per_page: '2' } });
    assert.deepEqual(ids(asc), [...all].reverse().slice(0, 2));
    assert.match(String(asc.headers.link), new RegExp(`id_after=${ids(asc)[1]}`));
    for (const query of [{ pagination: 'keyset' }, { pagination: 'keyset', order_by: 'name' }] as Record<string, string>[]) {
      expectError(await t.get('/api/v4/projects', { query }), 405, { error: 'Keyset pagination is not yet available for this type of request' });
    }
  });
});

describe('GET /users/:user_id/projects', () => {
  test('personal projects of a user by id or username, as the caller may see them', async () => {
    for (const ref of [String(alice.user.id), 'alice', 'ALICE']) {
      const res = await t.get(`/api/v4/users/${ref}/projects`, { token: bob.token });
      expectStatus(res, 200);
      expectEntities(res.json(), ProjectWithAccessEntity);
      assert.deepEqual(ids(res), [p.gamma.id, p.beta.id]);
    }
    assert.deepEqual(ids(await t.get('/api/v4/users/alice/projects', { token: alice.token })), [p.gamma.id, p.beta.id, p.alpha.id]);
    const anon = await t.get('/api/v4/users/alice/projects');
    expectEntities(anon.json(), ProjectSimpleEntity);
    assert.deepEqual(ids(anon), [p.gamma.id]);
    assert.deepEqual(ids(await t.get('/api/v4/users/alice/projects', { token: bob.token, query: { search: 'gamma' } })), [p.gamma.id]);
    assert.deepEqual(ids(await t.get('/api/v4/users/alice/projects', { token: bob.token, query: { order_by: 'name', sort: 'asc' } })), [p.beta.id, p.gamma.id]);
  });

  test('role × visibility: the owner’s projects as each caller sees them', async () => {
    await runMatrix(world, {
      expect: (role) => (role === 'blocked' ? 403 : 200),
      call: ({ caller, project }) => t.get(`/api/v4/users/matrix-owner/projects`, { token: caller.token, query: { search: project.path } }),
      verify(res, { role, visibility, project }) {
        assert.deepEqual(ids(res), canSee(role, visibility) ? [project.id] : []);
      },
    });
  });

  test('an unknown user is 404', async () => {
    expectError(await t.get('/api/v4/users/nobody/projects'), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/users/999999/projects', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
  });
});

describe('GET /groups/:id/projects', () => {
  test('role × visibility: readers of the group list its projects in the full form', async () => {
    const projects = new Map<string, ProjectRow>();
    for (const [visibility, g] of Object.entries(world.groups)) projects.set(visibility, await createProject(t, { namespace: g, visibility: visibility as 'public' }));
    await runMatrix(world, {
      expect: expectation({ success: 200, auth: 'optional' }),
      errors: refusals('Group'),
      call: ({ caller, group }) => t.get(`/api/v4/groups/${group.id}/projects`, { token: caller.token }),
      verify(res, { visibility }) {
        expectEntities(res.json(), ProjectEntity);
        assert.deepEqual(ids(res), [projects.get(visibility)!.id]);
      },
    });
  });

  test('subgroups with include_subgroups, filters and the simple form', async () => {
    const res = await t.get(`/api/v4/groups/${group.id}/projects`, { token: bob.token });
    expectStatus(res, 200);
    expectEntities(res.json(), ProjectEntity);
    assert.deepEqual(ids(res), [p.rocket.id, p.anvil.id]);
    assert.deepEqual(ids(await t.get(`/api/v4/groups/acme/projects`, { token: bob.token, query: { include_subgroups: 'true' } })), [p.hammer.id, p.rocket.id, p.anvil.id]);
    assert.deepEqual(ids(await t.get(`/api/v4/groups/acme/projects`, { token: bob.token, query: { include_subgroups: 'true', archived: 'true' } })), [p.hammer.id]);
    assert.deepEqual(ids(await t.get(`/api/v4/groups/acme%2Ftools/projects`, { token: bob.token })), [p.hammer.id]);
    // A stranger sees the public and internal ones only.
    const stranger = await t.user();
    assert.deepEqual(ids(await t.get(`/api/v4/groups/acme/projects`, { token: stranger.token, query: { include_subgroups: 'true' } })), [p.hammer.id, p.anvil.id]);
    const anon = await t.get(`/api/v4/groups/acme/projects`, { query: { include_subgroups: 'true' } });
    expectEntities(anon.json(), ProjectEntity);
    assert.deepEqual(ids(anon), [p.anvil.id]);
    const simple = await t.get(`/api/v4/groups/acme/projects`, { token: bob.token, query: { simple: 'true' } });
    expectEntities(simple.json(), ProjectSimpleEntity);
    assert.deepEqual(ids(await t.get(`/api/v4/groups/acme/projects`, { token: bob.token, query: { order_by: 'name', sort: 'asc' } })), [p.anvil.id, p.rocket.id]);
  });

  test('an unknown group is 404; keyset is not offered here', async () => {
    expectError(await t.get('/api/v4/groups/999999/projects'), 404, { message: '404 Group Not Found' });
    expectError(await t.get('/api/v4/groups/acme/projects', { query: { pagination: 'keyset', order_by: 'id' } }), 405, {
      error: 'Keyset pagination is not yet available for this type of request',
    });
  });
});

describe('GET /projects: deep pages', () => {
  /** Every page of `query` in turn, following Link rel="next". */
  async function walk(url: string | null, token: string | null): Promise<{ ids: number[]; totals: string[] }> {
    const out = { ids: [] as number[], totals: [] as string[] };
    while (url) {
      const res = await t.get(url, { token: token ?? undefined });
      expectStatus(res, 200);
      out.ids.push(...ids(res));
      out.totals.push(String(res.headers['x-total']));
      const next = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''));
      url = next ? new URL(next[1]).pathname + new URL(next[1]).search : null;
    }
    return out;
  }

  test('from offset 200 on, authorizations are tested as a set, with the same rows and totals', async () => {
    const carol = await t.user({ username: 'carol-deep' });
    const open = await createGroup(t, { path: 'deep-open', visibility: 'private', members: [[carol.user.id, ACCESS.REPORTER]] });
    const closed = await createGroup(t, { path: 'deep-closed', visibility: 'private' });
    for (let i = 0; i < 240; i++) {
      const visibility = (['private', 'internal', 'public'] as const)[i % 3];
      await createProject(t, { path: `deep-${i}`, visibility, namespace: i % 2 === 0 ? open : closed });
    }
    const callers: [string, string | null][] = [
      ['member', carol.token],
      ['non-member', alice.token],
      ['external', world.callers.external.token!],
      ['admin', ROOT_TOKEN],
      ['anonymous', null],
    ];
    for (const [who, token] of callers) {
      const byOffset = await walk('/api/v4/projects?order_by=id&sort=desc&per_page=100', token);
      const byKeyset = await walk('/api/v4/projects?pagination=keyset&order_by=id&sort=desc&per_page=100', token);
      if (who === 'member' || who === 'admin') assert.ok(byOffset.ids.length > 200, who);
      assert.deepEqual(byOffset.ids, byKeyset.ids, who);
      assert.deepEqual(new Set(byOffset.totals), new Set([String(byOffset.ids.length)]), who);
    }
    const shallow = await statementsDuring(t, () => list({ page: '2' }, carol.token));
    assert.ok(shallow.some((s) => s.includes('exists (select 1 from project_authorizations pa')));
    const deep = await statementsDuring(t, () => list({ page: '3' }, carol.token));
    assert.ok(deep.some((s) => s.includes('in (select pa.project_id from project_authorizations pa')));
  });
});
