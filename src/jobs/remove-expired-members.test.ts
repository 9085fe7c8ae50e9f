// Membership expiry, driven by a test clock: memberships go on their expiry date, with an expired
// event for projects, the access they gave, and project bots whose membership expired.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS } from '../core/access/levels.ts';
import { addMember, createGroup, createProject } from '../../test/factories.ts';
import { type TestApp, createTestApp } from '../../test/harness.ts';
import { expectStatus } from '../../test/matchers.ts';
import { removeExpiredMembersTask } from './remove-expired-members.ts';
import { runDueTasks } from './scheduler.ts';
import { periodicTasks } from './tasks.ts';

let t: TestApp;
let clock = new Date('2030-03-01T10:00:00.000Z');

before(async () => {
  t = await createTestApp({}, { now: () => clock });
});
after(() => t.close());

const membershipsOf = async (userId: number) =>
  (await t.deps.db.selectFrom('members').select(['source_type', 'source_id']).where('user_id', '=', userId).orderBy('id').execute()).map((r) => ({ ...r }));
const eventsOf = async (userId: number) =>
  (await t.deps.db.selectFrom('events').select(['project_id', 'action']).where('author_id', '=', userId).orderBy('id').execute()).map((r) => ({ ...r }));

test('the task is registered with the scheduler', () => {
  assert.ok(periodicTasks.includes(removeExpiredMembersTask));
});

test('memberships go on their expiry date, with what they gave', async () => {
  const owner = await t.user();
  const projectMember = await t.user();
  const groupMember = await t.user();
  const later = await t.user();
  const group = await createGroup(t, { members: [[owner.user.id, ACCESS.OWNER]] });
  const project = await createProject(t, { namespace: group });
  await addMember(t, project, projectMember.user.id, ACCESS.DEVELOPER, '2030-03-02');
  await addMember(t, group, groupMember.user.id, ACCESS.REPORTER, '2030-03-02');
  await addMember(t, project, groupMember.user.id, ACCESS.MAINTAINER);
  await addMember(t, project, later.user.id, ACCESS.GUEST, '2030-03-03');

  // The day before: nothing is due.
  await removeExpiredMembersTask.run(t.deps);
  assert.equal((await membershipsOf(projectMember.user.id)).length, 1);
  expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token: projectMember.token }), 200);

  clock = new Date('2030-03-02T00:00:00.000Z');
  assert.ok((await runDueTasks(t.deps, [removeExpiredMembersTask])).includes('remove_expired_members'));

  assert.deepEqual(await membershipsOf(projectMember.user.id), []);
  assert.deepEqual(await eventsOf(projectMember.user.id), [{ project_id: project.id, action: 'expired' }]);
  expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token: projectMember.token }), 404);
  // An expired group membership records nothing itself and ends the memberships below the group.
  assert.deepEqual(await membershipsOf(groupMember.user.id), []);
  assert.deepEqual(await eventsOf(groupMember.user.id), [{ project_id: project.id, action: 'left' }]);
  expectStatus(await t.get(`/api/v4/groups/${group.id}/members`, { token: groupMember.token }), 404);
  // Not due yet.
  assert.deepEqual(await membershipsOf(later.user.id), [{ source_type: 'Project', source_id: project.id }]);
});

test("a group's last owner stays even when expired", async () => {
  const owner = await t.user();
  const group = await createGroup(t);
  await addMember(t, group, owner.user.id, ACCESS.OWNER, '2030-01-01');
  await removeExpiredMembersTask.run(t.deps);
  assert.deepEqual(await membershipsOf(owner.user.id), [{ source_type: 'Namespace', source_id: group.id }]);
});

test('a project bot whose membership expired is deleted, and its token stops working', async () => {
  const maintainer = await t.user();
  const project = await createProject(t, { namespace: await createGroup(t, { members: [[maintainer.user.id, ACCESS.OWNER]] }) });
  const created = await t.post(`/api/v4/projects/${project.id}/access_tokens`, {
    token: maintainer.token,
    body: { name: 'deploy', scopes: ['api'], expires_at: '2030-03-05' },
  });
  expectStatus(created, 201);
  const { token, user_id: botId } = created.json();
  expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 200);
  clock = new Date('2030-03-05T08:00:00.000Z');
  await removeExpiredMembersTask.run(t.deps);
  assert.equal(await t.deps.db.selectFrom('users').select('id').where('id', '=', botId).executeTakeFirst(), undefined);
  expectStatus(await t.get(`/api/v4/projects/${project.id}/members`, { token }), 401);
});
