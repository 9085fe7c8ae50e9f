// A real client against a real socket: @gitbeaker/rest manages project and group members and
// project access tokens, and must not notice it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { listeningTestApp, statusOf } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ProjectAccessTokenEntity, ProjectAccessTokenWithSecretEntity } from '../project-access-tokens/project-access-tokens.schemas.ts';
import { MemberEntity } from './members.schemas.ts';

let t: TestApp;
let host: string;
let api: InstanceType<typeof Gitlab>;
let users: TestUser[];
let group: NamespaceRow;
let subgroup: NamespaceRow;
let project: ProjectRow;

before(async () => {
  ({ t, host } = await listeningTestApp());
  api = new Gitlab({ host, token: ROOT_TOKEN });
  users = [];
  for (let i = 0; i < 4; i++) users.push(await t.user({ username: `gb-member-${i}` }));
  group = await createGroup(t, { path: 'gb-group' });
  subgroup = await createGroup(t, { path: 'gb-sub', parent: group });
  project = await createProject(t, { path: 'gb-project', namespace: subgroup });
});
after(() => t.close());

describe('GroupMembers', () => {
  test('add, show, edit, all (direct and inherited), remove', async () => {
    const added = await api.GroupMembers.add(group.id, ACCESS.OWNER, { userId: users[0].user.id });
    expectEntity(added, MemberEntity);
    assert.equal(added.access_level, ACCESS.OWNER);
    await api.GroupMembers.add('gb-group', ACCESS.DEVELOPER, { userId: users[1].user.id, expiresAt: '2099-01-31' });
    await api.GroupMembers.add('gb-group/gb-sub', ACCESS.MAINTAINER, { userId: users[1].user.id });

    const shown = await api.GroupMembers.show(group.id, users[1].user.id);
    expectEntity(shown, MemberEntity);
    assert.equal(shown.expires_at, '2099-01-31');
    const edited = await api.GroupMembers.edit(group.id, users[1].user.id, ACCESS.REPORTER, { expiresAt: '2099-02-28' });
    expectEntity(edited, MemberEntity);
    assert.deepEqual([edited.access_level, edited.expires_at], [ACCESS.REPORTER, '2099-02-28']);

    const direct = await api.GroupMembers.all(subgroup.id);
    expectEntities(direct, MemberEntity);
    assert.deepEqual(direct.map((m) => m.id), [users[1].user.id]);
    const all = await api.GroupMembers.all(subgroup.id, { includeInherited: true, perPage: 1 });
    expectEntities(all, MemberEntity);
    assert.deepEqual(
      all.map((m) => [m.id, m.access_level]),
      [
        [users[0].user.id, ACCESS.OWNER],
        [users[1].user.id, ACCESS.MAINTAINER],
      ],
    );
    const inherited = await api.GroupMembers.show(subgroup.id, users[0].user.id, { includeInherited: true });
    expectEntity(inherited, MemberEntity);
    assert.equal(await statusOf(api.GroupMembers.show(subgroup.id, users[0].user.id)), 404);

    const filtered = await api.GroupMembers.all(group.id, { query: 'gb-member-1' });
    assert.deepEqual(filtered.map((m) => m.id), [users[1].user.id]);

    await api.GroupMembers.remove(subgroup.id, users[1].user.id);
    assert.equal(await statusOf(api.GroupMembers.show(subgroup.id, users[1].user.id)), 404);
    // The last owner stays.
    assert.equal(await statusOf(api.GroupMembers.remove(group.id, users[0].user.id)), 403);
    assert.equal(await statusOf(api.GroupMembers.add(group.id, ACCESS.GUEST, { userId: users[0].user.id })), 409);
  });
});

describe('ProjectMembers', () => {
  test('add, show, edit, all, remove, as the project member who manages them', async () => {
    const owner = new Gitlab({ host, token: users[0].token });
    const added = await owner.ProjectMembers.add(project.id, ACCESS.DEVELOPER, { userId: users[2].user.id });
    expectEntity(added, MemberEntity);
    await owner.ProjectMembers.add('gb-group/gb-sub/gb-project', ACCESS.GUEST, { userId: users[3].user.id, expiresAt: '2099-03-01' });

    const shown = await owner.ProjectMembers.show(project.id, users[3].user.id);
    expectEntity(shown, MemberEntity);
    assert.deepEqual([shown.access_level, shown.expires_at], [ACCESS.GUEST, '2099-03-01']);
    const edited = await owner.ProjectMembers.edit(project.id, users[3].user.id, ACCESS.MAINTAINER);
    assert.equal(edited.access_level, ACCESS.MAINTAINER);

    const direct = await owner.ProjectMembers.all(project.id);
    expectEntities(direct, MemberEntity);
    assert.deepEqual(direct.map((m) => m.id), [users[2].user.id, users[3].user.id]);
    const { data, paginationInfo } = await owner.ProjectMembers.all(project.id, { includeInherited: true, perPage: 2, showExpanded: true });
    expectEntities(data, MemberEntity);
    // The group's owner and reporter above, and the two project members.
    assert.deepEqual([paginationInfo.total, paginationInfo.totalPages], [4, 2]);
    const all = await owner.ProjectMembers.all(project.id, { includeInherited: true, perPage: 2 });
    assert.deepEqual(
      all.map((m) => m.id),
      users.map((u) => u.user.id),
    );
    const inherited = await owner.ProjectMembers.show(project.id, users[0].user.id, { includeInherited: true });
    assert.equal(inherited.access_level, ACCESS.OWNER);

    // A member leaves on their own; a developer may not remove someone else.
    const developer = new Gitlab({ host, token: users[2].token });
    assert.equal(await statusOf(developer.ProjectMembers.remove(project.id, users[3].user.id)), 403);
    await developer.ProjectMembers.remove(project.id, users[2].user.id);
    await owner.ProjectMembers.remove(project.id, users[3].user.id);
    assert.deepEqual(await owner.ProjectMembers.all(project.id), []);
    assert.equal(await statusOf(owner.ProjectMembers.add(project.id, ACCESS.OWNER, { userId: users[2].user.id })), 400);
  });
});

describe('ProjectAccessTokens', () => {
  test('create, all, show, revoke; the token works with the client', async () => {
    const created = await api.ProjectAccessTokens.create(project.id, 'gb-bot', ['api'], '2099-12-31', { accessLevel: ACCESS.DEVELOPER });
    expectEntity(created, ProjectAccessTokenWithSecretEntity);
    assert.deepEqual([created.access_level, created.expires_at], [ACCESS.DEVELOPER, '2099-12-31']);

    const bot = new Gitlab({ host, token: created.token as string });
    const members = await bot.ProjectMembers.all(project.id);
    assert.ok(members.some((m) => m.id === created.user_id));

    const all = await api.ProjectAccessTokens.all(project.id);
    expectEntities(all, ProjectAccessTokenEntity);
    assert.deepEqual(all.map((tk) => tk.id), [created.id]);
    const shown = await api.ProjectAccessTokens.show(project.id, created.id);
    expectEntity(shown, ProjectAccessTokenEntity);
    assert.equal(shown.name, 'gb-bot');

    await api.ProjectAccessTokens.revoke(project.id, created.id);
    assert.deepEqual(await api.ProjectAccessTokens.all(project.id), []);
    assert.equal(await statusOf(bot.ProjectMembers.all(project.id)), 401);
    assert.equal(await statusOf(api.ProjectAccessTokens.show(project.id, created.id)), 404);
  });
});
