// Webhooks against a real HTTP receiver on this machine (local requests allowed for it): project,
// group and system hooks' CRUD with strict shapes, the platform's refusals, deliveries of issue,
// push, member and test events with the 14.x headers, failures logged and resent, the address
// rules at delivery, and the access matrix of each kind of hook.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildMatrixWorld, expectation, refusals, runMatrix, type MatrixWorld } from '../../../test/access-matrix.ts';
import { setInstanceSettings } from '../../../test/factories.ts';
import { type HookReceiver, startHookReceiver } from '../../../test/hook-receiver.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { REPORTED_VERSION } from '../../version.ts';
import { GroupHookEntity, HookEventEntity, ProjectHookEntity, SystemHookEntity } from './hooks.schemas.ts';


let t: TestApp;
let mia: TestUser;
let receiver: HookReceiver;
let base: string;
/** Status the receiver answers, by path. */
let answers: Map<string, number>;
let projectId: number;

before(async () => {
  receiver = await startHookReceiver();
  ({ base, answers } = receiver);
  t = await createTestApp();
  await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
  mia = await t.user({ username: 'mia', name: 'Mia' });
  await t.deps.db.updateTable('users').set({ public_email: 'mia@example.com' }).where('id', '=', mia.user.id).execute();
  const project = await t.post('/api/v4/projects', { token: mia.token, body: { name: 'app', initialize_with_readme: true } });
  expectStatus(project, 201);
  projectId = project.json().id;
});
after(async () => {
  await t.close();
  receiver.close();
});

const hooksOf = (id: number) => `/api/v4/projects/${id}/hooks`;
const take = (path: string) => receiver.take(path);

describe('project hooks', () => {
  test('created with the 14.x defaults; the token is never shown; read, listed, changed, removed', async () => {
    const created = await t.post(hooksOf(projectId), { token: mia.token, body: { url: `${base}/crud`, token: 's3cret', issues_events: true } });
    expectStatus(created, 201);
    const hook = created.json();
    expectEntity(hook, ProjectHookEntity);
    assert.equal(hook.push_events, true);
    assert.equal(hook.issues_events, true);
    assert.equal(hook.tag_push_events, false);
    assert.equal(hook.enable_ssl_verification, true);
    assert.equal(hook.push_events_branch_filter, null);
    assert.equal(hook.project_id, projectId);
    assert.ok(!('token' in hook));
    expectEntities((await t.get(hooksOf(projectId), { token: mia.token })).json(), ProjectHookEntity);
    const one = await t.get(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token });
    assert.deepEqual(one.json(), hook);
    const changed = await t.put(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token, body: { url: `${base}/crud2`, push_events: false, push_events_branch_filter: 'release/*' } });
    expectStatus(changed, 200);
    expectEntity(changed.json(), ProjectHookEntity);
    assert.deepEqual([changed.json().url, changed.json().push_events, changed.json().push_events_branch_filter], [`${base}/crud2`, false, 'release/*']);
    expectStatus(await t.del(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token }), 204);
    const gone = await t.get(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token });
    assert.deepEqual([gone.statusCode, gone.json()], [404, { message: '404 Not found' }]);
  });

  test('refusals: a URL that is not http(s) or leads here, a bad branch filter, a missing url', async () => {
    const refused = async (body: Record<string, unknown>, message: string) => {
      const res = await t.post(hooksOf(projectId), { token: mia.token, body });
      assert.deepEqual([res.statusCode, res.json()], [422, { message }]);
    };
    await refused({ url: 'ftp://example.com/x' }, 'Invalid url given');
    await refused({ url: 'not a url' }, 'Invalid url given');
    await refused({ url: `${base}/x`, push_events_branch_filter: 'a..b' }, 'Invalid branch filter given');
    await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: false });
    try {
      await refused({ url: `${base}/x` }, 'Invalid url given');
      await refused({ url: 'http://10.1.2.3/x' }, 'Invalid url given');
    } finally {
      await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
    }
    const missing = await t.post(hooksOf(projectId), { token: mia.token, body: {} });
    assert.deepEqual([missing.statusCode, missing.json()], [400, { error: 'url is missing' }]);
  });

  test('an issue is delivered with the 14.x headers and payload; the delivery is logged and resent', async () => {
    const hook = (await t.post(hooksOf(projectId), { token: mia.token, body: { url: `${base}/issues`, token: 'tok', push_events: false, issues_events: true } })).json();
    const issue = await t.post(`/api/v4/projects/${projectId}/issues`, { token: mia.token, body: { title: 'Broken' } });
    expectStatus(issue, 201);
    assert.equal(take('/issues').length, 0, 'nothing is sent by the write itself');
    await t.runJobs();
    const [got] = take('/issues');
    assert.ok(got, 'the issue event arrived');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], `GitLab/${REPORTED_VERSION}`);
    assert.equal(got.headers['x-gitlab-event'], 'Issue Hook');
    assert.equal(got.headers['x-gitlab-token'], 'tok');
    assert.equal(got.body.object_kind, 'issue');
    assert.equal(got.body.event_type, 'issue');
    const attrs = got.body.object_attributes as Record<string, unknown>;
    assert.deepEqual([attrs.title, attrs.action, attrs.state, attrs.state_id, attrs.iid], ['Broken', 'open', 'opened', 1, issue.json().iid]);
    assert.match(attrs.created_at as string, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    assert.deepEqual(got.body.user, { id: mia.user.id, name: 'Mia', username: 'mia', avatar_url: null, email: 'mia@example.com' });
    assert.equal((got.body.project as Record<string, unknown>).path_with_namespace, 'mia/app');

    // Closing it: the close action and the state's change.
    await t.put(`/api/v4/projects/${projectId}/issues/${issue.json().iid}`, { token: mia.token, body: { state_event: 'close' } });
    await t.runJobs();
    const closed = take('/issues')[1];
    assert.equal((closed.body.object_attributes as Record<string, unknown>).action, 'close');
    assert.deepEqual((closed.body.changes as Record<string, unknown>).state_id, { previous: 1, current: 2 });

    const events = await t.get(`${hooksOf(projectId)}/${hook.id}/events`, { token: mia.token });
    expectStatus(events, 200);
    expectEntities(events.json(), HookEventEntity);
    assert.equal(events.json().length, 2);
    const [latest] = events.json();
    assert.deepEqual([latest.trigger, latest.response_status, latest.response_body], ['issue_hooks', '200', 'ok']);
    assert.equal(latest.request_headers['X-Gitlab-Event'], 'Issue Hook');
    assert.equal(latest.response_headers['X-Answer'], 'yes');
    const resent = await t.post(`${hooksOf(projectId)}/${hook.id}/events/${latest.id}/resend`, { token: mia.token });
    assert.deepEqual([resent.statusCode, resent.json()], [201, { response_status: 200 }]);
    assert.equal(take('/issues').length, 3);
    await t.del(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token });
  });

  test('a push is delivered to hooks whose branch filter covers it, with its commits', async () => {
    const all = (await t.post(hooksOf(projectId), { token: mia.token, body: { url: `${base}/push-all` } })).json();
    const filtered = (await t.post(hooksOf(projectId), { token: mia.token, body: { url: `${base}/push-release`, push_events_branch_filter: 'release/*' } })).json();
    const file = await t.post(`/api/v4/projects/${projectId}/repository/files/notes.txt`, { token: mia.token, body: { branch: 'main', content: 'hello', commit_message: 'Add notes\n\nwith a body' } });
    expectStatus(file, 201);
    await t.runJobs();
    const [push] = take('/push-all');
    assert.ok(push, 'the push arrived');
    assert.equal(push.headers['x-gitlab-event'], 'Push Hook');
    assert.equal(push.headers['x-gitlab-token'], undefined);
    assert.deepEqual([push.body.object_kind, push.body.event_name, push.body.ref, push.body.total_commits_count], ['push', 'push', 'refs/heads/main', 1]);
    const [commit] = push.body.commits as Record<string, unknown>[];
    assert.deepEqual([commit.title, commit.message, commit.added, commit.modified, commit.removed], ['Add notes', 'Add notes\n\nwith a body', ['notes.txt'], [], []]);
    assert.match(commit.timestamp as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    assert.equal(push.body.checkout_sha, push.body.after);
    assert.equal(take('/push-release').length, 0, 'main is not release/*');
    for (const hook of [all, filtered]) await t.del(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token });
  });

  test('a failed delivery is logged with the answer and not retried by default; a test sends a sample', async () => {
    answers.set('/failing', 500);
    const hook = (await t.post(hooksOf(projectId), { token: mia.token, body: { url: `${base}/failing`, issues_events: true, push_events: false } })).json();
    await t.post(`/api/v4/projects/${projectId}/issues`, { token: mia.token, body: { title: 'Again' } });
    const outcomes = await t.runJobs();
    assert.ok(outcomes.every((o) => o.ok));
    assert.equal(take('/failing').length, 1);
    const [log] = (await t.get(`${hooksOf(projectId)}/${hook.id}/events`, { token: mia.token, query: { status: 'server_failure' } })).json();
    assert.deepEqual([log.response_status, log.response_body], ['500', 'broken']);
    const failedTest = await t.post(`${hooksOf(projectId)}/${hook.id}/test/issues_events`, { token: mia.token });
    assert.deepEqual([failedTest.statusCode, failedTest.json()], [422, { message: 'broken' }]);
    answers.delete('/failing');
    const passed = await t.post(`${hooksOf(projectId)}/${hook.id}/test/push_events`, { token: mia.token });
    assert.deepEqual([passed.statusCode, passed.json()], [201, { message: '201 Created' }]);
    assert.equal(take('/failing').at(-1)?.headers['x-gitlab-event'], 'Push Hook');
    const none = await t.post(`${hooksOf(projectId)}/${hook.id}/test/releases_events`, { token: mia.token });
    assert.deepEqual([none.statusCode, none.json()], [422, { message: 'Ensure the project has releases.' }]);
    await t.del(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token });
  });

  test('a local address saved while allowed is refused at delivery once the instance forbids it', async () => {
    const hook = (await t.post(hooksOf(projectId), { token: mia.token, body: { url: `${base}/later`, issues_events: true, push_events: false } })).json();
    await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: false });
    try {
      await t.post(`/api/v4/projects/${projectId}/issues`, { token: mia.token, body: { title: 'Blocked' } });
      await t.runJobs();
    } finally {
      await setInstanceSettings(t, { allow_local_requests_from_web_hooks_and_services: true });
    }
    assert.equal(take('/later').length, 0);
    const [log] = (await t.get(`${hooksOf(projectId)}/${hook.id}/events`, { token: mia.token })).json();
    assert.equal(log.response_status, 'internal error');
    assert.match(log.internal_error_message, /is blocked: Requests to (localhost|loopback addresses) are not allowed/);
    await t.del(`${hooksOf(projectId)}/${hook.id}`, { token: mia.token });
  });
});

describe('group hooks', () => {
  test("the group's owners keep hooks with member events; a new member is delivered", async () => {
    const group = (await t.post('/api/v4/groups', { token: mia.token, body: { name: 'team', path: 'team' } })).json();
    const created = await t.post(`/api/v4/groups/${group.id}/hooks`, { token: mia.token, body: { url: `${base}/members`, member_events: true, push_events: false } });
    expectStatus(created, 201);
    expectEntity(created.json(), GroupHookEntity);
    assert.deepEqual([created.json().member_events, created.json().subgroup_events, created.json().group_id], [true, false, group.id]);
    const bob = await t.user({ username: 'bob', name: 'Bob' });
    expectStatus(await t.post(`/api/v4/groups/${group.id}/members`, { token: mia.token, body: { user_id: bob.user.id, access_level: ACCESS.DEVELOPER } }), 201);
    await t.runJobs();
    const [got] = take('/members');
    assert.equal(got.headers['x-gitlab-event'], 'Member Hook');
    assert.deepEqual(
      [got.body.event_name, got.body.group_id, got.body.group_path, got.body.user_username, got.body.group_access, got.body.expires_at],
      ['user_add_to_group', group.id, 'team', 'bob', 'Developer', null],
    );
    assert.match(got.body.created_at as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

describe('system hooks', () => {
  test('administrators keep them; a test sends the sample as a System Hook; pushes reach those that ask', async () => {
    const refused = await t.get('/api/v4/hooks', { token: mia.token });
    assert.deepEqual([refused.statusCode, refused.json()], [403, { message: '403 Forbidden' }]);
    const created = await t.post('/api/v4/hooks', { token: ROOT_TOKEN, body: { url: `${base}/system`, push_events: true } });
    expectStatus(created, 201);
    expectEntity(created.json(), SystemHookEntity);
    assert.deepEqual([created.json().push_events, created.json().repository_update_events, created.json().merge_requests_events], [true, true, false]);
    expectEntities((await t.get('/api/v4/hooks', { token: ROOT_TOKEN })).json(), SystemHookEntity);
    const tested = await t.post(`/api/v4/hooks/${created.json().id}`, { token: ROOT_TOKEN });
    expectStatus(tested, 201);
    assert.equal(tested.json().event_name, 'project_create');
    assert.equal(take('/system').at(-1)?.headers['x-gitlab-event'], 'System Hook');
    await t.post(`/api/v4/projects/${projectId}/repository/files/system.txt`, { token: mia.token, body: { branch: 'main', content: 'x', commit_message: 'System' } });
    await t.runJobs();
    const kinds = take('/system').map((r) => [r.headers['x-gitlab-event'], r.body.object_kind ?? r.body.event_name]);
    assert.deepEqual(kinds.slice(1).sort(), [['System Hook', 'push'], ['System Hook', 'repository_update']]);
    expectStatus(await t.del(`/api/v4/hooks/${created.json().id}`, { token: ROOT_TOKEN }), 204);
  });
});

describe('who may use hooks', () => {
  let world: MatrixWorld;
  before(async () => {
    world = await buildMatrixWorld(t);
  });

  test('project hooks: maintainers and owners', async () => {
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: (c) => t.get(hooksOf(c.project.id), { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), ProjectHookEntity),
    });
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 201, minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: (c) => t.post(hooksOf(c.project.id), { token: c.caller.token, body: { url: 'https://example.com/hook' } }),
      verify: (res) => expectEntity(res.json(), ProjectHookEntity),
    });
  });

  test('group hooks: owners', async () => {
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 200, minLevel: ACCESS.OWNER }),
      errors: refusals('Group'),
      call: (c) => t.get(`/api/v4/groups/${c.group.id}/hooks`, { token: c.caller.token }),
      verify: (res) => expectEntities(res.json(), GroupHookEntity),
    });
  });
});
