// Group members: the owner level, minimal access, the last owner, leaving, what leaving a group
// does below it, inherited members, authorizations, and no events.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { MemberEntity } from './members.schemas.ts';

let t: TestApp;
let owner: TestUser;
let group: NamespaceRow;

before(async () => {
  t = await createTestApp();
  owner = await t.user();
});
after(() => t.close());

beforeEach(async () => {
  group = await createGroup(t, { members: [[owner.user.id, ACCESS.OWNER]] });
});

const url = (suffix = '', g = group) => `/api/v4/groups/${g.id}/members${suffix}`;
const levelOf = async (userId: number, g = group) =>
  (await t.deps.db.selectFrom('members').select('access_level').where('source_type', '=', 'Namespace').where('source_id', '=', g.id).where('user_id', '=', userId).executeTakeFirst())
    ?.access_level;

describe('adding to a group', () => {
  test('owner and minimal access are group levels; no event is recorded', async () => {
    const a = await t.user();
    const b = await t.user();
    const res = await t.post(url(), { token: owner.token, body: { user_id: a.user.id, access_level: ACCESS.OWNER } });
    expectStatus(res, 201);
    expectEntity(res.json(), MemberEntity);
    assert.equal(res.json().access_level, ACCESS.OWNER);
    assert.equal((await t.post(url(), { token: owner.token, body: { user_id: b.user.id, access_level: ACCESS.MINIMAL_ACCESS } })).json().access_level, ACCESS.MINIMAL_ACCESS);
    const c = await t.user();
    for (const level of [0, 60]) {
      expectError(await t.post(url(), { token: owner.token, body: { user_id: c.user.id, access_level: level } }), 400, { message: { access_level: ['is not included in the list'] } });
    }
    assert.equal(await t.count('events'), 0);
  });

  test('a group path works as the id; unknown group: 404', async () => {
    const a = await t.user();
    expectStatus(await t.post(`/api/v4/groups/${encodeURIComponent(group.full_path)}/members`, { token: owner.token, body: { user_id: a.user.id, access_level: 30 } }), 201);
    expectError(await t.get('/api/v4/groups/99999/members', { token: ROOT_TOKEN }), 404, { message: '404 Group Not Found' });
  });

  test("a member reaches the group's projects, in subgroups too, and loses them when removed", async () => {
    const { user, token } = await t.user();
    const sub = await createGroup(t, { parent: group });
    const project = await createProject(t, { namespace: sub });
    expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 404);
    expectStatus(await t.post(url(), { token: owner.token, body: { user_id: user.id, access_level: ACCESS.REPORTER } }), 201);
    expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 200);
    expectStatus(await t.get(`/api/v4/groups/${sub.id}/members`, { token }), 200);
    expectStatus(await t.del(url(`/${user.id}`), { token: owner.token }), 204);
    expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 404);
  });

  test('a subgroup member may not be below the level held in a group above', async () => {
    const { user } = await t.user();
    await addMember(t, group, user.id, ACCESS.MAINTAINER);
    const sub = await createGroup(t, { parent: group });
    expectError(await t.post(url('', sub), { token: owner.token, body: { user_id: user.id, access_level: ACCESS.DEVELOPER } }), 400, {
      message: { access_level: [`should be greater than or equal to Maintainer inherited membership from group ${group.name}`] },
    });
  });
});

describe('the last owner', () => {
  test('can be neither removed nor demoted, not even by an administrator', async () => {
    expectError(await t.del(url(`/${owner.user.id}`), { token: owner.token }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${owner.user.id}`), { token: ROOT_TOKEN }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url(`/${owner.user.id}`), { token: ROOT_TOKEN, body: { access_level: ACCESS.MAINTAINER } }), 403, { message: '403 Forbidden' });
    assert.equal(await levelOf(owner.user.id), ACCESS.OWNER);
  });

  test('with a second owner, either may go or step down', async () => {
    const second = await t.user();
    await addMember(t, group, second.user.id, ACCESS.OWNER);
    const res = await t.put(url(`/${owner.user.id}`), { token: owner.token, body: { access_level: ACCESS.DEVELOPER } });
    expectStatus(res, 200);
    assert.equal(res.json().access_level, ACCESS.DEVELOPER);
    // The demoted owner may no longer manage members, and the second owner is now the last one.
    expectError(await t.put(url(`/${second.user.id}`), { token: owner.token, body: { access_level: ACCESS.DEVELOPER } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(url(`/${second.user.id}`), { token: second.token }), 403, { message: '403 Forbidden' });
  });

  test('a blocked owner does not count; an owner inherited from a group above does', async () => {
    const blocked = await t.user();
    await addMember(t, group, blocked.user.id, ACCESS.OWNER);
    await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.user.id).execute();
    expectError(await t.del(url(`/${owner.user.id}`), { token: owner.token }), 403, { message: '403 Forbidden' });
    const sub = await createGroup(t, { parent: group });
    const subOwner = await t.user();
    await addMember(t, sub, subOwner.user.id, ACCESS.OWNER);
    expectStatus(await t.del(url(`/${subOwner.user.id}`, sub), { token: subOwner.token }), 204);
  });
});

describe('leaving and removing', () => {
  test('any member may leave; only owners remove others', async () => {
    const a = await t.user();
    const b = await t.user();
    await addMember(t, group, a.user.id, ACCESS.MAINTAINER);
    await addMember(t, group, b.user.id, ACCESS.GUEST);
    expectError(await t.del(url(`/${b.user.id}`), { token: a.token }), 403, { message: '403 Forbidden' });
    expectError(await t.put(url(`/${b.user.id}`), { token: a.token, body: { access_level: 20 } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(url(`/${b.user.id}`), { token: b.token }), 204);
    expectStatus(await t.del(url(`/${a.user.id}`), { token: owner.token }), 204);
    expectError(await t.del(url(`/${a.user.id}`), { token: owner.token }), 404, { message: '404 Not found' });
  });

  describe('memberships below the group', () => {
    let sub: NamespaceRow;
    let project: ProjectRow;
    let subProject: ProjectRow;
    let user: TestUser;

    beforeEach(async () => {
      user = await t.user();
      sub = await createGroup(t, { parent: group });
      project = await createProject(t, { namespace: group });
      subProject = await createProject(t, { namespace: sub });
      await addMember(t, group, user.user.id, ACCESS.DEVELOPER);
      await addMember(t, sub, user.user.id, ACCESS.MAINTAINER);
      await addMember(t, project, user.user.id, ACCESS.MAINTAINER);
      await addMember(t, subProject, user.user.id, ACCESS.DEVELOPER);
    });

    const memberships = async () =>
      (await t.deps.db.selectFrom('members').select(['source_type', 'source_id']).where('user_id', '=', user.user.id).orderBy('id').execute()).map((r) => ({ ...r }));

    test('end with it, recording left for each project', async () => {
      expectStatus(await t.del(url(`/${user.user.id}`), { token: owner.token }), 204);
      assert.deepEqual(await memberships(), []);
      const events = await t.deps.db.selectFrom('events').select(['project_id', 'action', 'author_id']).where('author_id', '=', user.user.id).orderBy('id').execute();
      assert.deepEqual(
        events.map((e) => ({ ...e })),
        [
          { project_id: project.id, action: 'left', author_id: user.user.id },
          { project_id: subProject.id, action: 'left', author_id: user.user.id },
        ],
      );
      const reach = await t.deps.db.selectFrom('project_authorizations').select('project_id').where('user_id', '=', user.user.id).execute();
      assert.deepEqual(reach, []);
    });

    test('stay with skip_subresources', async () => {
      expectStatus(await t.del(`${url(`/${user.user.id}`)}?skip_subresources=true`, { token: owner.token }), 204);
      assert.deepEqual(await memberships(), [
        { source_type: 'Namespace', source_id: sub.id },
        { source_type: 'Project', source_id: project.id },
        { source_type: 'Project', source_id: subProject.id },
      ]);
    });

    test("a subgroup's last owner keeps that membership", async () => {
      // Above the subgroup, the only other owner is blocked.
      const blocked = await t.user();
      const top = await createGroup(t, { members: [[blocked.user.id, ACCESS.OWNER], [user.user.id, ACCESS.MAINTAINER]] });
      const below = await createGroup(t, { parent: top, members: [[user.user.id, ACCESS.OWNER]] });
      await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.user.id).execute();
      expectStatus(await t.del(url(`/${user.user.id}`, top), { token: user.token }), 204);
      const left = await t.deps.db.selectFrom('members').select('source_id').where('user_id', '=', user.user.id).where('source_type', '=', 'Namespace').where('source_id', 'in', [top.id, below.id]).execute();
      assert.deepEqual(left.map((r) => r.source_id), [below.id]);
    });
  });
});

describe('GET /groups/:id/members/all', () => {
  test('members of the group and the groups above, one per user at the highest level', async () => {
    const a = await t.user();
    const b = await t.user();
    const minimal = await t.user();
    await addMember(t, group, a.user.id, ACCESS.DEVELOPER);
    await addMember(t, group, minimal.user.id, ACCESS.MINIMAL_ACCESS);
    const sub = await createGroup(t, { parent: group });
    await addMember(t, sub, a.user.id, ACCESS.MAINTAINER);
    await addMember(t, sub, b.user.id, ACCESS.GUEST);
    const res = await t.get(url('/all', sub), { token: b.token });
    expectStatus(res, 200);
    expectEntities(res.json(), MemberEntity);
    assert.deepEqual(
      res.json().map((m: { id: number; access_level: number }) => [m.id, m.access_level]),
      [
        [owner.user.id, ACCESS.OWNER],
        [minimal.user.id, ACCESS.MINIMAL_ACCESS],
        [a.user.id, ACCESS.MAINTAINER],
        [b.user.id, ACCESS.GUEST],
      ],
    );
    assert.equal(res.headers['x-total'], '4');
    const direct = await t.get(url('', sub), { token: b.token });
    assert.deepEqual(direct.json().map((m: { id: number }) => m.id), [a.user.id, b.user.id]);
    const one = await t.get(url(`/all/${owner.user.id}`, sub), { token: b.token });
    expectEntity(one.json(), MemberEntity);
    assert.equal(one.json().access_level, ACCESS.OWNER);
    expectError(await t.get(url(`/${owner.user.id}`, sub), { token: b.token }), 404, { message: '404 Not found' });
  });

  test('a private group is readable by those who reach one of its projects, members list included', async () => {
    const { user, token } = await t.user();
    const project = await createProject(t, { namespace: group });
    await addMember(t, project, user.id, ACCESS.GUEST);
    expectStatus(await t.get(url(), { token }), 200);
    expectError(await t.post(url(), { token, body: { user_id: user.id, access_level: 10 } }), 403, { message: '403 Forbidden' });
  });
});
