// Events recorded by the other modules' writes, read back through the API: creating a project
// (created), adding a member (joined), removing one (left), and membership expiry run by the
// scheduler with a test clock (expired).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { runDueTasks } from '../../jobs/scheduler.ts';
import { periodicTasks } from '../../jobs/tasks.ts';
import { EventEntity } from './events.schemas.ts';

let t: TestApp;
let clock = new Date('2031-05-10T09:00:00.000Z');
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let projectId: number;

before(async () => {
  t = await createTestApp({}, { now: () => clock });
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
  carol = await t.user({ username: 'carol' });
});
after(() => t.close());

const basic = (u: TestUser) => ({ id: u.user.id, username: u.user.username, name: u.user.name, state: 'active', avatar_url: null, web_url: `http://quarry.test/${u.user.username}` });

function event(id: number, author: TestUser, actionName: string, createdAt: string) {
  return {
    id,
    title: null,
    project_id: projectId,
    action_name: actionName,
    target_id: null,
    target_iid: null,
    target_type: null,
    author_id: author.user.id,
    target_title: null,
    created_at: createdAt,
    author: basic(author),
    author_username: author.user.username,
  };
}

test('creating a project and adding a member record created and joined', async () => {
  const created = await t.post('/api/v4/projects', { token: alice.token, body: { name: 'Tracker', visibility: 'private' } });
  expectStatus(created, 201);
  projectId = created.json().id;
  clock = new Date('2031-05-10T10:00:00.000Z');
  expectStatus(await t.post(`/api/v4/projects/${projectId}/members`, { token: alice.token, body: { user_id: bob.user.id, access_level: ACCESS.DEVELOPER } }), 201);

  const res = await t.get(`/api/v4/projects/${projectId}/events`, { token: alice.token });
  expectStatus(res, 200);
  expectEntities(res.json(), EventEntity);
  const [joined, createdEvent] = res.json();
  assert.deepEqual(res.json(), [
    event(joined.id, bob, 'joined', '2031-05-10T10:00:00.000Z'),
    event(createdEvent.id, alice, 'created', '2031-05-10T09:00:00.000Z'),
  ]);

  // The new member reads them too; an outsider may not see the private project at all.
  const own = await t.get('/api/v4/events', { token: bob.token });
  assert.deepEqual(own.json(), [event(joined.id, bob, 'joined', '2031-05-10T10:00:00.000Z')]);
  const all = await t.get('/api/v4/events', { token: bob.token, query: { scope: 'all' } });
  assert.deepEqual(all.json().map((e: { id: number }) => e.id), [joined.id, createdEvent.id]);
  assert.deepEqual((await t.get('/api/v4/users/alice/events', { token: carol.token })).json(), []);
  assert.deepEqual((await t.get('/api/v4/users/alice/events', { token: bob.token })).json().map((e: { id: number }) => e.id), [createdEvent.id]);
});

test('removing a member records left; expiry, run by the scheduler, records expired', async () => {
  clock = new Date('2031-05-11T08:00:00.000Z');
  expectStatus(await t.del(`/api/v4/projects/${projectId}/members/${bob.user.id}`, { token: alice.token }), 204);
  expectStatus(
    await t.post(`/api/v4/projects/${projectId}/members`, { token: alice.token, body: { user_id: carol.user.id, access_level: ACCESS.REPORTER, expires_at: '2031-05-12' } }),
    201,
  );

  clock = new Date('2031-05-12T00:30:00.000Z');
  const ran = await runDueTasks(t.deps, periodicTasks);
  assert.ok(ran.includes('remove_expired_members'), `ran: ${ran.join(', ')}`);

  const res = await t.get(`/api/v4/projects/${projectId}/events`, { token: alice.token, query: { after: '2031-05-10' } });
  expectStatus(res, 200);
  expectEntities(res.json(), EventEntity);
  const [expired, joined, left] = res.json();
  assert.deepEqual(res.json(), [
    event(expired.id, carol, 'removed due to membership expiration from', '2031-05-12T00:30:00.000Z'),
    event(joined.id, carol, 'joined', '2031-05-11T08:00:00.000Z'),
    event(left.id, bob, 'left', '2031-05-11T08:00:00.000Z'),
  ]);
  // Carol no longer belongs to the private project, so its events, her own included, are hidden from her.
  assert.deepEqual((await t.get('/api/v4/events', { token: carol.token })).json(), []);
  expectStatus(await t.get(`/api/v4/projects/${projectId}/events`, { token: carol.token }), 404);
});
