// To-do items of issues and their notes: made as the platform makes them (assigned, mentioned,
// directly addressed, marked; never for those who may not read the issue), done when their user
// acts (closing, commenting), deleted with the issue; the list with every filter and its
// refusals, marking one or all done.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { addMember, createGroup, createProject, personalNamespace } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { updateNamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { IssueTodoEntity, TodoEntity } from './todo-list.schemas.ts';

let t: TestApp;
let owner: TestUser;
let dev: TestUser;
let guest: TestUser;
let stranger: TestUser;
let group: NamespaceRow;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'todo-owner' });
  dev = await t.user({ username: 'todo-dev' });
  guest = await t.user({ username: 'todo-guest' });
  stranger = await t.user({ username: 'todo-stranger' });
  group = await createGroup(t, { path: 'todo-team', visibility: 'private', members: [[owner.user.id, ACCESS.OWNER], [dev.user.id, ACCESS.DEVELOPER]] });
  project = await createProject(t, { path: 'todo-app', namespace: group, visibility: 'private', creatorId: owner.user.id, members: [[guest.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

const issuesUrl = () => `/api/v4/projects/${project.id}/issues`;

async function openIssue(body: Record<string, unknown>, token = owner.token): Promise<{ id: number; iid: number }> {
  const res = await t.post(issuesUrl(), { token, body: { title: 'Something', ...body } });
  expectStatus(res, 201);
  return res.json();
}

/** The caller's to-dos (pending unless asked), each checked against the entity. */
async function todos(user: TestUser, query: Record<string, string> = {}) {
  const res = await t.get('/api/v4/todos', { token: user.token, query: { per_page: '100', ...query } });
  expectStatus(res, 200);
  expectEntities(res.json(), TodoEntity);
  return res.json() as { id: number; action_name: string; target: { id: number; iid: number }; target_type: string; body: string; target_url: string; state: string; author: { id: number } }[];
}

const summary = (list: Awaited<ReturnType<typeof todos>>) => list.map((todo) => [todo.action_name, todo.target.iid]);

describe('to-dos of issues', () => {
  test('assigning makes an `assigned` to-do for each assignee, self-assignment too, with the issue as its target', async () => {
    const issue = await openIssue({ title: 'Assign me', assignee_ids: [owner.user.id, dev.user.id] });
    const [mine] = await todos(owner);
    expectEntity(mine, IssueTodoEntity);
    assert.equal(mine.action_name, 'assigned');
    assert.equal(mine.author.id, owner.user.id);
    assert.equal(mine.body, 'Assign me');
    assert.equal(mine.target_url, `http://quarry.test/todo-team/todo-app/-/issues/${issue.iid}`);
    assert.equal(mine.state, 'pending');
    const target = mine.target as unknown as Record<string, unknown>;
    assert.equal(target.id, issue.id);
    assert.equal(target.subscribed, false, 'the platform presents the target without the caller');
    assert.deepEqual(target.references, { short: `#${issue.iid}`, relative: `#${issue.iid}`, full: `todo-team/todo-app#${issue.iid}` });
    const project = (mine as unknown as { project: Record<string, unknown> }).project;
    assert.deepEqual(Object.keys(project).sort(), ['created_at', 'description', 'id', 'name', 'name_with_namespace', 'path', 'path_with_namespace']);
    assert.deepEqual(summary(await todos(dev)).slice(0, 1), [['assigned', issue.iid]]);

    // Reassigning: only the assignee added gets one.
    const before = (await todos(dev)).length;
    expectStatus(await t.put(`${issuesUrl()}/${issue.iid}`, { token: owner.token, body: { assignee_ids: [dev.user.id, guest.user.id] } }), 200);
    assert.equal((await todos(dev)).length, before);
    assert.deepEqual(summary(await todos(guest)).slice(0, 1), [['assigned', issue.iid]]);
  });

  test('mentions: `directly_addressed` when a line of a paragraph starts with them, `mentioned` elsewhere; not in code; never for who may not read', async () => {
    const description = ['@todo-dev please look', 'cc @todo-guest and @todo-stranger', '', '`@todo-owner` in code', '', '- @todo-owner in a list'].join('\n');
    const issue = await openIssue({ title: 'Mentions', description }, dev.token);
    assert.deepEqual(summary(await todos(dev)).filter(([, iid]) => iid === issue.iid), [['directly_addressed', issue.iid]], 'self-mentions count');
    assert.deepEqual(summary(await todos(guest)).filter(([, iid]) => iid === issue.iid), [['mentioned', issue.iid]]);
    assert.deepEqual(summary(await todos(owner)).filter(([, iid]) => iid === issue.iid), [['mentioned', issue.iid]], 'the list item mentions, the code does not');
    assert.deepEqual(await todos(stranger), [], 'a non-member of the private project gets none');

    // Editing: whoever the old text mentioned gets no second one; the newly mentioned get theirs.
    const count = async (user: TestUser) => (await todos(user, { state: 'done' })).length + (await todos(user)).length;
    const guestBefore = await count(guest);
    expectStatus(await t.put(`${issuesUrl()}/${issue.iid}`, { token: owner.token, body: { description: `${description}\n\nand @todo-guest again` } }), 200);
    assert.equal(await count(guest), guestBefore);
    expectStatus(await t.put(`${issuesUrl()}/${issue.iid}`, { token: owner.token, body: { title: 'Mentions for @todo-guest' } }), 200);
    assert.equal(await count(guest), guestBefore, 'a title mention of someone the description mentions is no news');
  });

  test('a confidential issue makes no to-dos for those who may not read it; a group mention reaches its members who may', async () => {
    const team = await createGroup(t, { path: 'todo-reviewers', visibility: 'private', members: [[owner.user.id, ACCESS.OWNER], [guest.user.id, ACCESS.GUEST], [stranger.user.id, ACCESS.DEVELOPER]] });
    const issue = await openIssue({ title: 'Secret', description: 'for @todo-guest and @todo-reviewers', confidential: true });
    assert.deepEqual(summary(await todos(guest)).filter(([, iid]) => iid === issue.iid), [], 'a guest may not read a confidential issue');
    assert.deepEqual(summary(await todos(stranger)), [], 'nor a member of the group who is none of the project');
    const open = await openIssue({ title: 'Open', description: '@todo-reviewers have a look' });
    assert.deepEqual(summary(await todos(guest)).filter(([, iid]) => iid === open.iid), [['directly_addressed', open.iid]]);
    assert.deepEqual(summary(await todos(owner)).filter(([, iid]) => iid === open.iid), [['directly_addressed', open.iid]]);

    // A group that turned mentions off reaches nobody; one the writer may not see neither.
    await updateNamespaceSettings(t.deps.db, team.id, { mentions_disabled: true });
    const quiet = await openIssue({ title: 'Quiet', description: '@todo-reviewers have a look' });
    assert.deepEqual(summary(await todos(guest)).filter(([, iid]) => iid === quiet.iid), []);
    await updateNamespaceSettings(t.deps.db, team.id, { mentions_disabled: false });
    const unseen = await openIssue({ title: 'Unseen', description: '@todo-reviewers have a look' }, dev.token);
    assert.deepEqual(summary(await todos(guest)).filter(([, iid]) => iid === unseen.iid), [], 'the writer may not see the group');
  });

  test('notes: their mentions make to-dos that point at them; commenting marks the commenter’s pending to-dos done', async () => {
    const issue = await openIssue({ title: 'Discuss', assignee_ids: [dev.user.id] });
    const note = await t.post(`${issuesUrl()}/${issue.iid}/notes`, { token: owner.token, body: { body: '@todo-guest what do you think?' } });
    expectStatus(note, 201);
    const [fromNote] = (await todos(guest)).filter((todo) => todo.target.iid === issue.iid);
    assert.equal(fromNote.action_name, 'directly_addressed');
    assert.equal(fromNote.body, '@todo-guest what do you think?');
    assert.equal(fromNote.target_url, `http://quarry.test/todo-team/todo-app/-/issues/${issue.iid}#note_${note.json().id}`);

    // The assignee answers: their own pending to-do on the issue is done.
    expectStatus(await t.post(`${issuesUrl()}/${issue.iid}/notes`, { token: dev.token, body: { body: 'On it' } }), 201);
    assert.deepEqual(summary(await todos(dev)).filter(([, iid]) => iid === issue.iid), []);
    assert.deepEqual(summary(await todos(dev, { state: 'done' })).filter(([, iid]) => iid === issue.iid), [['assigned', issue.iid]]);
    assert.equal((await todos(guest)).filter((todo) => todo.target.iid === issue.iid).length, 1, 'others keep theirs');

    // Editing a note mentions anew only those it did not mention; deleting it takes its to-dos.
    const edited = await t.put(`${issuesUrl()}/${issue.iid}/notes/${note.json().id}`, { token: owner.token, body: { body: '@todo-guest what do you think? @todo-dev too' } });
    expectStatus(edited, 200);
    assert.equal((await todos(guest)).filter((todo) => todo.target.iid === issue.iid).length, 1);
    assert.deepEqual(summary(await todos(dev)).filter(([, iid]) => iid === issue.iid), [['mentioned', issue.iid]]);
    expectStatus(await t.del(`${issuesUrl()}/${issue.iid}/notes/${note.json().id}`, { token: owner.token }), 204);
    assert.deepEqual(summary(await todos(guest)).filter(([, iid]) => iid === issue.iid), []);
  });

  test('closing marks the closer’s pending to-dos on the issue done, nobody else’s; deleting the issue deletes its to-dos', async () => {
    const issue = await openIssue({ title: 'Close me', assignee_ids: [owner.user.id, dev.user.id] });
    expectStatus(await t.put(`${issuesUrl()}/${issue.iid}`, { token: owner.token, body: { state_event: 'close' } }), 200);
    assert.deepEqual(summary(await todos(owner)).filter(([, iid]) => iid === issue.iid), []);
    assert.deepEqual(summary(await todos(dev)).filter(([, iid]) => iid === issue.iid), [['assigned', issue.iid]]);
    expectStatus(await t.del(`${issuesUrl()}/${issue.iid}`, { token: owner.token }), 204);
    assert.deepEqual(summary(await todos(dev)).filter(([, iid]) => iid === issue.iid), []);
    assert.deepEqual(summary(await todos(owner, { state: 'done' })).filter(([, iid]) => iid === issue.iid), []);
  });

  test('POST …/issues/:iid/todo: 201 with a `marked` to-do, 304 while it is pending; refusals', async () => {
    const issue = await openIssue({ title: 'Remember me' });
    const url = `${issuesUrl()}/${issue.iid}/todo`;
    const res = await t.post(url, { token: dev.token });
    expectStatus(res, 201);
    expectEntity(res.json(), IssueTodoEntity);
    assert.equal(res.json().action_name, 'marked');
    assert.equal(res.json().author.id, dev.user.id);
    assert.equal(res.json().target.subscribed, false);
    const again = await t.post(url, { token: dev.token });
    expectStatus(again, 304);
    assert.equal(again.body, '');
    expectStatus(await t.post(`/api/v4/todos/${res.json().id}/mark_as_done`, { token: dev.token }), 201);
    expectStatus(await t.post(url, { token: dev.token }), 201);

    expectError(await t.post(url), 401, { message: '401 Unauthorized' });
    expectError(await t.post(url, { token: stranger.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.post(`${issuesUrl()}/9999/todo`, { token: dev.token }), 404, { message: '404 Not found' });
    expectError(await t.post(`${issuesUrl()}/abc/todo`, { token: dev.token }), 400, { error: 'issue_iid is invalid' });
    // The platform asks whether the caller may read the project's merge requests: a guest of a private project may not.
    expectError(await t.post(url, { token: guest.token }), 404, { message: '404 Issues Not Found' });
    const secret = await openIssue({ title: 'Secret', confidential: true });
    expectError(await t.post(`${issuesUrl()}/${secret.iid}/todo`, { token: guest.token }), 404, { message: '404 Not found' });
  });
});

describe('the list', () => {
  let other: ProjectRow;
  let author: TestUser;
  let user: TestUser;
  const made: Record<string, number> = {};

  before(async () => {
    user = await t.user({ username: 'todo-lister' });
    author = await t.user({ username: 'todo-author' });
    await addMember(t, project, user.user.id, ACCESS.DEVELOPER);
    await addMember(t, project, author.user.id, ACCESS.DEVELOPER);
    other = await createProject(t, { path: 'todo-elsewhere', namespace: await personalNamespace(t, owner.user.id), creatorId: owner.user.id, members: [[user.user.id, ACCESS.DEVELOPER]] });
    made.assigned = (await openIssue({ title: 'First', assignee_ids: [user.user.id] })).iid;
    made.mentioned = (await openIssue({ title: 'Second', description: 'see @todo-lister' }, author.token)).iid;
    const elsewhere = await t.post(`/api/v4/projects/${other.id}/issues`, { token: owner.token, body: { title: 'Third', assignee_ids: [user.user.id] } });
    expectStatus(elsewhere, 201);
    made.elsewhere = elsewhere.json().iid;
  });

  const iids = (list: Awaited<ReturnType<typeof todos>>) => list.map((todo) => [todo.action_name, (todo as unknown as { project: { id: number } }).project.id, todo.target.iid]);

  test('the caller’s own pending to-dos, newest first, with the pagination headers', async () => {
    assert.deepEqual(iids(await todos(user)), [['assigned', other.id, made.elsewhere], ['mentioned', project.id, made.mentioned], ['assigned', project.id, made.assigned]]);
    const page = await t.get('/api/v4/todos', { token: user.token, query: { per_page: '2' } });
    expectStatus(page, 200);
    assert.equal(page.json().length, 2);
    assert.equal(page.headers['x-total'], '3');
    assert.equal(page.headers['x-total-pages'], '2');
    assert.equal(page.headers['x-next-page'], '2');
    assert.match(String(page.headers.link), /rel="next"/);
  });

  test('filters: action, author_id, project_id, group_id, state, type', async () => {
    assert.deepEqual(iids(await todos(user, { action: 'mentioned' })), [['mentioned', project.id, made.mentioned]]);
    assert.deepEqual(iids(await todos(user, { author_id: String(author.user.id) })), [['mentioned', project.id, made.mentioned]]);
    assert.deepEqual(iids(await todos(user, { project_id: String(other.id) })), [['assigned', other.id, made.elsewhere]]);
    assert.deepEqual(iids(await todos(user, { group_id: String(group.id) })), [['mentioned', project.id, made.mentioned], ['assigned', project.id, made.assigned]]);
    assert.deepEqual(await todos(user, { group_id: '999999' }), []);
    assert.equal((await todos(user, { type: 'Issue' })).length, 3);
    assert.deepEqual(await todos(user, { type: 'MergeRequest' }), []);
    assert.deepEqual(await todos(user, { type: 'DesignManagement::Design' }), []);
    assert.deepEqual(await todos(user, { state: 'done' }), []);
    assert.equal((await todos(user, { state: 'pending', action: 'assigned', project_id: String(project.id) })).length, 1);
  });

  test('refusals of bad filters, and of anonymous callers', async () => {
    const list = (query: Record<string, string>) => t.get('/api/v4/todos', { token: user.token, query });
    expectError(await list({ action: 'approved' }), 400, { error: 'action does not have a valid value' });
    expectError(await list({ state: 'all' }), 400, { error: 'state does not have a valid value' });
    expectError(await list({ type: 'Commit' }), 400, { error: 'type does not have a valid value' });
    expectError(await list({ author_id: 'me' }), 400, { error: 'author_id is invalid' });
    expectError(await list({ project_id: 'x' }), 400, { error: 'project_id is invalid' });
    expectError(await list({ group_id: '1.5' }), 400, { error: 'group_id is invalid' });
    expectError(await t.get('/api/v4/todos'), 401, { message: '401 Unauthorized' });
  });

  test('to-dos on a project the user may no longer read are left out', async () => {
    const leaver = await t.user({ username: 'todo-leaver' });
    await addMember(t, other, leaver.user.id, ACCESS.DEVELOPER);
    const issue = await t.post(`/api/v4/projects/${other.id}/issues`, { token: owner.token, body: { title: 'Before leaving', assignee_ids: [leaver.user.id] } });
    expectStatus(issue, 201);
    assert.equal((await todos(leaver)).length, 1);
    expectStatus(await t.del(`/api/v4/projects/${other.id}/members/${leaver.user.id}`, { token: owner.token }), 204);
    assert.deepEqual(await todos(leaver), []);
  });

  test('POST /todos/:id/mark_as_done: 201 with the to-do, done; again, unchanged; another user’s or none is 404', async () => {
    const [first] = await todos(user);
    const res = await t.post(`/api/v4/todos/${first.id}/mark_as_done`, { token: user.token });
    expectStatus(res, 201);
    expectEntity(res.json(), IssueTodoEntity);
    assert.equal(res.json().state, 'done');
    assert.equal(res.json().id, first.id);
    const again = await t.post(`/api/v4/todos/${first.id}/mark_as_done`, { token: user.token });
    expectStatus(again, 201);
    assert.deepEqual(again.json(), res.json());
    assert.equal((await todos(user, { state: 'done' }))[0].id, first.id);

    expectError(await t.post(`/api/v4/todos/${first.id}/mark_as_done`, { token: author.token }), 404, { message: '404 Not found' });
    expectError(await t.post(`/api/v4/todos/${first.id}/mark_as_done`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.post('/api/v4/todos/999999/mark_as_done', { token: user.token }), 404, { message: '404 Not found' });
    expectError(await t.post('/api/v4/todos/abc/mark_as_done', { token: user.token }), 400, { error: 'id is invalid' });
    expectError(await t.post(`/api/v4/todos/${first.id}/mark_as_done`), 401, { message: '401 Unauthorized' });
  });

  test('POST /todos/mark_as_done: 204 without a body; every pending to-do of the caller is done, nobody else’s', async () => {
    const others = (await todos(dev)).length;
    assert.ok((await todos(user)).length > 0);
    const res = await t.post('/api/v4/todos/mark_as_done', { token: user.token });
    expectStatus(res, 204);
    assert.equal(res.body, '');
    assert.deepEqual(await todos(user), []);
    assert.equal((await todos(user, { state: 'done' })).length, 3);
    const totals = async (query: Record<string, string>) => (await t.get('/api/v4/todos', { token: user.token, query })).headers['x-total'];
    assert.deepEqual([await totals({}), await totals({ state: 'done' }), await totals({ state: 'done', project_id: String(other.id) }), await totals({ state: 'done', action: 'assigned' })], ['0', '3', '1', '2']);
    assert.equal((await todos(dev)).length, others);
    expectError(await t.post('/api/v4/todos/mark_as_done'), 401, { message: '401 Unauthorized' });
  });
});

test('the counters of the lists (todo_counts) agree with the to-dos after all of the above', async () => {
  const counted = await t.deps.db.selectFrom('todos').select(['user_id', 'state', 'project_id', (eb) => eb.fn.countAll<number>().as('todos')]).groupBy(['user_id', 'state', 'project_id']).execute();
  const kept = await t.deps.db.selectFrom('todo_counts').selectAll().where('todos', '!=', 0).execute();
  const key = (r: { user_id: number; state: string; project_id: number; todos: number | string }) => `${r.user_id}/${r.state}/${r.project_id}=${Number(r.todos)}`;
  assert.deepEqual(kept.map(key).sort(), counted.map(key).sort());
  assert.ok(counted.length > 5);
});
