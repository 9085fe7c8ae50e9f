// A real client against a real socket: @gitbeaker/rest creates, lists (offset and keyset pages),
// shows, edits, stars and removes projects, and must not notice it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { listeningTestApp, statusOf } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { UserBasicEntity } from '../users/users.schemas.ts';
import { ProjectEntity, ProjectSimpleEntity, ProjectWithAccessEntity } from './projects.schemas.ts';

let t: TestApp;
let host: string;
let alice: TestUser;
let api: InstanceType<typeof Gitlab>;
let admin: InstanceType<typeof Gitlab>;
const created: number[] = [];

before(async () => {
  ({ t, host } = await listeningTestApp());
  alice = await t.user({ username: 'alice' });
  api = new Gitlab({ host, token: alice.token });
  admin = new Gitlab({ host, token: ROOT_TOKEN });
});
after(() => t.close());

describe('projects through @gitbeaker/rest', () => {
  test('Projects.create', async () => {
    for (let i = 0; i < 7; i++) {
      const project = await api.Projects.create({ name: `Gitbeaker ${i}`, visibility: i % 2 === 0 ? 'public' : 'private', topics: ['client', `n${i}`] });
      expectEntity(project, ProjectEntity);
      assert.equal(project.path, `gitbeaker-${i}`);
      assert.equal(project.path_with_namespace, `alice/gitbeaker-${i}`);
      created.push(project.id as number);
    }
    const forUser = await admin.Projects.create({ userId: alice.user.id, name: 'Made by admin' });
    expectEntity(forUser, ProjectEntity);
    assert.equal(forUser.namespace.path, 'alice');
    created.push(forUser.id as number);
  });

  test('Projects.all: every offset page, newest first', async () => {
    const all = await api.Projects.all({ perPage: 3, maxPages: 10, owned: true });
    expectEntities(all, ProjectWithAccessEntity);
    assert.deepEqual(
      all.map((p) => p.id),
      [...created].reverse(),
    );
    const { data, paginationInfo } = await api.Projects.all({ pagination: 'offset', perPage: 3, page: 2, owned: true, showExpanded: true });
    assert.equal(data.length, 3);
    assert.equal(paginationInfo.total, created.length);
    assert.equal(paginationInfo.totalPages, 3);
    assert.equal(paginationInfo.next, 3);
    assert.equal(paginationInfo.previous, 1);
  });

  test('Projects.all: keyset pages by id', async () => {
    const all = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2, owned: true });
    expectEntities(all, ProjectWithAccessEntity);
    assert.deepEqual(
      all.map((p) => p.id),
      created,
    );
  });

  test('Projects.all anonymously: public projects in the simple form', async () => {
    const anonymous = new Gitlab({ host, token: '' } as ConstructorParameters<typeof Gitlab>[0]);
    const all = await anonymous.Projects.all({ perPage: 2, maxPages: 10 });
    expectEntities(all, ProjectSimpleEntity);
    assert.deepEqual(
      all.map((p) => p.id),
      created.filter((_, i) => i % 2 === 0 && i < 7).reverse(),
    );
  });

  test('Projects.show by id and by path, with statistics', async () => {
    const byId = await api.Projects.show(created[0], { statistics: true });
    expectEntity(byId, ProjectWithAccessEntity);
    assert.equal((byId.statistics as { repository_size: number }).repository_size, 0);
    const byPath = await api.Projects.show('alice/gitbeaker-1');
    expectEntity(byPath, ProjectWithAccessEntity);
    assert.equal(byPath.id, created[1]);
    assert.equal(await statusOf(api.Projects.show('alice/missing')), 404);
  });

  test('Projects.edit', async () => {
    const edited = await api.Projects.edit(created[0], { description: 'edited by gitbeaker', mergeMethod: 'ff', topics: ['edited'] });
    expectEntity(edited, ProjectEntity);
    assert.equal(edited.description, 'edited by gitbeaker');
    assert.equal(edited.merge_method, 'ff');
    assert.deepEqual(edited.topics, ['edited']);
    assert.equal(await statusOf(api.Projects.edit(created[0], {})), 400);
  });

  test('Projects.star / unstar, archive / unarchive, allUsers', async () => {
    const starred = await api.Projects.star(created[2]);
    expectEntity(starred, ProjectEntity);
    assert.equal(starred.star_count, 1);
    const unstarred = await api.Projects.unstar(created[2]);
    assert.equal(unstarred.star_count, 0);
    const archived = await api.Projects.archive(created[2]);
    assert.equal(archived.archived, true);
    assert.equal((await api.Projects.unarchive(created[2])).archived, false);
    const users = await api.Projects.allUsers(created[2]);
    expectEntities(users, UserBasicEntity);
    assert.deepEqual(
      users.map((u) => u.username),
      ['alice'],
    );
  });

  test('Projects.remove', async () => {
    await api.Projects.remove(created[6]);
    assert.equal(await statusOf(api.Projects.show(created[6])), 404);
    const other = new Gitlab({ host, token: (await t.user()).token });
    assert.equal(await statusOf(other.Projects.remove(created[0])), 403);
  });
});
