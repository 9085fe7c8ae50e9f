// A real client against a real socket: @gitbeaker/rest drives groups and namespaces and must not
// notice it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { listeningTestApp, statusOf } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { NamespaceEntity, NamespaceExistenceEntity } from '../namespaces/namespaces.schemas.ts';
import { GroupDetailEntity, GroupEntity } from './groups.schemas.ts';

let t: TestApp;
let host: string;
let admin: InstanceType<typeof Gitlab>;
let dana: TestUser;
let asDana: InstanceType<typeof Gitlab>;

before(async () => {
  ({ t, host } = await listeningTestApp());
  admin = new Gitlab({ host, token: ROOT_TOKEN });
  dana = await t.user({ username: 'dana' });
  asDana = new Gitlab({ host, token: dana.token });
});
after(() => t.close());

describe('groups', () => {
  let top: number;

  test('Groups.create: top-level groups and subgroups', async () => {
    const group = await asDana.Groups.create('Gitbeaker Top', 'gb-top', { visibility: 'public', description: 'From the client' });
    expectEntity(group, GroupDetailEntity);
    assert.equal(group.full_path, 'gb-top');
    assert.equal(group.web_url, `${host}/groups/gb-top`);
    top = group.id as number;
    for (const name of ['alpha', 'bravo', 'charlie', 'delta', 'echo']) {
      const sub = await asDana.Groups.create(`Sub ${name}`, `sub-${name}`, { parentId: top, visibility: 'public' });
      expectEntity(sub, GroupDetailEntity);
      assert.equal(sub.full_path, `gb-top/sub-${name}`);
      assert.equal(sub.parent_id, top);
    }
  });

  test('Groups.all walks every page by the Link headers', async () => {
    const groups = await admin.Groups.all({ perPage: 2 });
    expectEntities(groups, GroupEntity);
    assert.equal(groups.length, 6);
    assert.equal(new Set(groups.map((g) => g.id)).size, 6);
  });

  test('Groups.all with maxPages and showExpanded reports the pagination', async () => {
    const { data, paginationInfo } = await asDana.Groups.all({ perPage: 4, maxPages: 1, showExpanded: true });
    expectEntities(data, GroupEntity);
    assert.equal(data.length, 4);
    assert.deepEqual(paginationInfo, { total: 6, next: 2, current: 1, previous: null, perPage: 4, totalPages: 2 });
  });

  test('Groups.all anonymous, keyset pages by name', async () => {
    const anonymous = new Gitlab({ host });
    const groups = await anonymous.Groups.all({ pagination: 'keyset', orderBy: 'name', sort: 'asc', perPage: 2 });
    expectEntities(groups, GroupEntity);
    assert.deepEqual(
      groups.map((g) => g.name),
      ['Gitbeaker Top', 'Sub alpha', 'Sub bravo', 'Sub charlie', 'Sub delta', 'Sub echo'],
    );
  });

  test('Groups.all with a search, as another user with all_available', async () => {
    const { token } = await t.user();
    const groups = await new Gitlab({ host, token }).Groups.all({ search: 'charlie', allAvailable: true });
    expectEntities(groups, GroupEntity);
    assert.deepEqual(groups.map((g) => g.full_path), ['gb-top/sub-charlie']);
  });

  test('Groups.show by id and by path', async () => {
    const byId = await asDana.Groups.show(top);
    expectEntity(byId, GroupDetailEntity);
    assert.equal(typeof byId.runners_token, 'string');
    const byPath = await admin.Groups.show('gb-top/sub-alpha');
    expectEntity(byPath, GroupDetailEntity);
    assert.equal(byPath.full_name, 'Gitbeaker Top / Sub alpha');
  });

  test('Groups.allSubgroups', async () => {
    const subgroups = await asDana.Groups.allSubgroups(top, { perPage: 2 });
    expectEntities(subgroups, GroupEntity);
    assert.deepEqual(
      subgroups.map((g) => g.path),
      ['sub-alpha', 'sub-bravo', 'sub-charlie', 'sub-delta', 'sub-echo'],
    );
  });

  test('Groups.edit renames, and the subgroups follow', async () => {
    const edited = await asDana.Groups.edit(top, { path: 'gb-renamed', name: 'Gitbeaker Renamed' });
    expectEntity(edited, GroupDetailEntity);
    assert.equal(edited.full_path, 'gb-renamed');
    const sub = await asDana.Groups.show('gb-renamed/sub-echo');
    expectEntity(sub, GroupDetailEntity);
    assert.equal(sub.full_name, 'Gitbeaker Renamed / Sub echo');
    assert.equal(await statusOf(asDana.Groups.show('gb-top/sub-echo')), 404);
  });

  test('refusals surface as HTTP errors', async () => {
    const { token } = await t.user();
    assert.equal(await statusOf(new Gitlab({ host, token }).Groups.edit(top, { description: 'nope' })), 403);
    assert.equal(await statusOf(asDana.Groups.create('Twin', 'gb-renamed')), 400);
  });

  test('Groups.remove', async () => {
    await asDana.Groups.remove(top);
    assert.equal(await statusOf(admin.Groups.show(top)), 404);
    assert.deepEqual(await admin.Groups.all(), []);
  });
});

describe('namespaces', () => {
  let group: number;
  before(async () => {
    group = ((await asDana.Groups.create('Spaces', 'spaces')) as { id: number }).id;
    await asDana.Groups.create('Inner', 'inner', { parentId: group });
  });

  test('Namespaces.all', async () => {
    const namespaces = await asDana.Namespaces.all();
    expectEntities(namespaces, NamespaceEntity);
    assert.deepEqual(
      namespaces.map((n) => [n.full_path, n.kind]),
      [
        ['dana', 'user'],
        ['spaces', 'group'],
        ['spaces/inner', 'group'],
      ],
    );
    const searched = await asDana.Namespaces.all({ search: 'inner' });
    assert.deepEqual(searched.map((n) => n.full_path), ['spaces/inner']);
  });

  test('Namespaces.show', async () => {
    const shown = await asDana.Namespaces.show(group);
    expectEntity(shown, NamespaceEntity);
    assert.equal(shown.members_count_with_descendants, 1);
    assert.equal(shown.plan, 'default');
    const inner = await asDana.Namespaces.show('spaces/inner');
    expectEntity(inner, NamespaceEntity);
    assert.equal(inner.parent_id, group);
    const { token } = await t.user();
    assert.equal(await statusOf(new Gitlab({ host, token }).Namespaces.show(group)), 404);
  });

  test('Namespaces.exists', async () => {
    const taken = await asDana.Namespaces.exists('spaces');
    expectEntity(taken, NamespaceExistenceEntity);
    assert.deepEqual(taken, { exists: true, suggests: ['spaces1'] });
    assert.deepEqual(await asDana.Namespaces.exists('inner'), { exists: false, suggests: [] });
    assert.deepEqual(await asDana.Namespaces.exists('inner', { parentId: String(group) }), { exists: true, suggests: ['inner1'] });
  });
});
