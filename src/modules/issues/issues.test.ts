// Issues: creation with per-project iids, labels found or created, assignees and milestones;
// updates with their system notes and events; closing and reopening; the list filters and
// orders; confidentiality; deletion; and the error bodies of the platform.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { addMember, createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError } from '../../../test/matchers.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { IssueEntity } from './issues.schemas.ts';

let t: TestApp;
let project: ProjectRow;
let reporter: TestUser;
let guest: TestUser;
let outsider: TestUser;

before(async () => {
  t = await createTestApp();
  reporter = await t.user();
  guest = await t.user();
  outsider = await t.user();
  const group = await createGroup(t, { path: 'issues-group', visibility: 'public' });
  project = await createProject(t, { path: 'tracker', namespace: group, visibility: 'public', members: [[reporter.user.id, ACCESS.REPORTER], [guest.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

const base = () => `/api/v4/projects/${project.id}/issues`;
const create = (body: Record<string, unknown>, token = ROOT_TOKEN) => t.post(base(), { token, body });

test('POST creates an issue with the next iid, its labels, assignees and an event', async () => {
  const res = await create({ title: 'First', description: 'Body\n- [x] done\n- [ ] todo', labels: 'bug,ui', assignee_ids: [reporter.user.id], weight: 3, due_date: '2026-12-24' });
  assert.equal(res.statusCode, 201, res.body);
  const issue = res.json();
  expectEntity(issue, IssueEntity);
  assert.equal(issue.iid, 1);
  assert.deepEqual(issue.labels, ['bug', 'ui']);
  assert.deepEqual(issue.assignees.map((a: { id: number }) => a.id), [reporter.user.id]);
  assert.equal(issue.assignee.id, reporter.user.id);
  assert.equal(issue.author.id, 1);
  assert.equal(issue.state, 'opened');
  assert.equal(issue.type, 'ISSUE');
  assert.equal(issue.weight, 3);
  assert.equal(issue.due_date, '2026-12-24');
  assert.deepEqual(issue.task_completion_status, { count: 2, completed_count: 1 });
  assert.equal(issue.has_tasks, true);
  assert.equal(issue.task_status, '1 of 2 tasks completed');
  assert.deepEqual(issue.references, { short: '#1', relative: '#1', full: `issues-group/tracker#1` });
  assert.equal(issue.web_url, `http://quarry.test/issues-group/tracker/-/issues/1`);
  assert.equal(issue.subscribed, true, 'the author follows the issue');
  assert.equal(issue.epic, null, 'a project of a group shows its (absent) epic');
  const second = (await create({ title: 'Second' })).json();
  assert.equal(second.iid, 2);
  const events = await t.deps.db.selectFrom('events').selectAll().where('target_type', '=', 'Issue').execute();
  assert.ok(events.some((e) => e.action === 'created' && e.target_id === issue.id && e.target_iid === 1));
});

test('an iid is never given twice, even after the newest issue is deleted', async () => {
  const last = (await create({ title: 'to delete' })).json();
  assert.equal((await t.del(`${base()}/${last.iid}`, { token: ROOT_TOKEN })).statusCode, 204);
  const next = (await create({ title: 'after' })).json();
  assert.equal(next.iid, last.iid + 1);
});

test('an owner may choose the iid; a taken one is 409 "Duplicated issue"', async () => {
  const chosen = (await create({ title: 'chosen', iid: 100 })).json();
  assert.equal(chosen.iid, 100);
  expectError(await create({ title: 'again', iid: 100 }), 409, { message: 'Duplicated issue' });
  assert.equal((await create({ title: 'next' })).json().iid, 101);
  // A guest's iid is ignored.
  const byGuest = (await create({ title: 'guest', iid: 500 }, guest.token)).json();
  assert.notEqual(byGuest.iid, 500);
});

test('validation: title missing, blank, too long; weight below 0', async () => {
  expectError(await create({}), 400, { error: 'title is missing' });
  expectError(await create({ title: ' ' }), 400, { message: { title: ["can't be blank"] } });
  expectError(await create({ title: 'x'.repeat(256) }), 400, { message: { title: ['is too long (maximum is 255 characters)'] } });
  expectError(await create({ title: 'w', weight: -1 }), 400, { message: { weight: ['must be greater than or equal to 0'] } });
  expectError(await create({ title: 't', issue_type: 'epic' }), 400, { error: 'issue_type does not have a valid value' });
});

test('a guest creates issues but its labels, assignees and weight are dropped; unknown labels are not created for it', async () => {
  const res = await create({ title: 'from a guest', labels: 'brand-new', assignee_ids: [reporter.user.id], weight: 5, confidential: true }, guest.token);
  assert.equal(res.statusCode, 201, res.body);
  const issue = res.json();
  assert.deepEqual(issue.labels, []);
  assert.deepEqual(issue.assignees, []);
  assert.equal(issue.weight, null);
  assert.equal(issue.confidential, true);
  const label = await t.deps.db.selectFrom('labels').select('id').where('title', '=', 'brand-new').executeTakeFirst();
  assert.equal(label, undefined);
});

test('PUT: close and reopen record events and system notes; title, labels and assignees too', async () => {
  const issue = (await create({ title: 'Lifecycle', labels: 'bug' })).json();
  const url = `${base()}/${issue.iid}`;
  const closed = await t.put(url, { token: reporter.token, body: { state_event: 'close' } });
  assert.equal(closed.statusCode, 200, closed.body);
  expectEntity(closed.json(), IssueEntity);
  assert.equal(closed.json().state, 'closed');
  assert.equal(closed.json().closed_by.id, reporter.user.id);
  assert.ok(closed.json().closed_at);
  const reopened = (await t.put(url, { token: reporter.token, body: { state_event: 'reopen' } })).json();
  assert.equal(reopened.state, 'opened');
  assert.equal(reopened.closed_at, null);
  assert.equal(reopened.closed_by, null);
  const edited = (await t.put(url, { token: ROOT_TOKEN, body: { title: 'Renamed', add_labels: 'ui', remove_labels: 'bug', assignee_ids: [guest.user.id] } })).json();
  assert.equal(edited.title, 'Renamed');
  assert.deepEqual(edited.labels, ['ui']);
  assert.deepEqual(edited.assignees.map((a: { id: number }) => a.id), [guest.user.id]);
  const notes = await t.get(`${url}/notes`, { token: ROOT_TOKEN, query: { sort: 'asc' } });
  expectEntities(notes.json(), NoteEntity);
  const bodies = notes.json().map((n: { body: string }) => n.body);
  const labelIds = await t.deps.db.selectFrom('labels').select(['id', 'title']).where('project_id', '=', project.id).execute();
  const idOf = (title: string) => labelIds.find((l) => l.title === title)!.id;
  assert.deepEqual(bodies, ['closed', 'reopened', `added ~${idOf('ui')} label and removed ~${idOf('bug')} label`, `assigned to @${guest.user.username}`, 'changed title from **Lifecycle** to **Renamed**']);
  assert.ok(notes.json().every((n: { system: boolean }) => n.system));
  assert.equal(edited.user_notes_count, 0, 'system notes are not counted');
  const actions = (await t.deps.db.selectFrom('events').select('action').where('target_id', '=', issue.id).where('target_type', '=', 'Issue').execute()).map((e) => e.action);
  assert.deepEqual(actions.sort(), ['closed', 'created', 'reopened']);
});

test('PUT needs at least one parameter, and the right to update', async () => {
  const issue = (await create({ title: 'Guarded' })).json();
  const url = `${base()}/${issue.iid}`;
  const res = await t.put(url, { token: ROOT_TOKEN, body: {} });
  assert.equal(res.statusCode, 400);
  assert.match(res.json().error, /^title, state_event, description, .* are missing, at least one parameter must be provided$/);
  expectError(await t.put(url, { token: guest.token, body: { title: 'no' } }), 403, { message: '403 Forbidden' });
  expectError(await t.put(`${base()}/9999`, { token: ROOT_TOKEN, body: { title: 'no' } }), 404, { message: '404 Not found' });
  // Its author may edit it even as a guest.
  const own = (await create({ title: 'Mine' }, guest.token)).json();
  assert.equal((await t.put(`${base()}/${own.iid}`, { token: guest.token, body: { title: 'Still mine' } })).statusCode, 200);
});

test('confidential issues: Reporters and up, the author and assignees', async () => {
  const secret = (await create({ title: 'Secret', confidential: true, assignee_ids: [guest.user.id] })).json();
  const url = `${base()}/${secret.iid}`;
  assert.equal((await t.get(url, { token: reporter.token })).statusCode, 200);
  assert.equal((await t.get(url, { token: guest.token })).statusCode, 200, 'an assignee reads it');
  expectError(await t.get(url, { token: outsider.token }), 404, { message: '404 Not found' });
  expectError(await t.get(url), 404, { message: '404 Not found' });
  const listed = (await t.get(base(), { token: outsider.token, query: { per_page: '100' } })).json();
  assert.ok(!listed.some((i: { id: number }) => i.id === secret.id));
});

test('list filters: state, labels (incl. None/Any), milestone, search, author, assignee, iids, not[], order', async () => {
  const group = await createGroup(t, { path: 'filters-group' });
  const p = await createProject(t, { path: 'filters', namespace: group });
  const url = `/api/v4/projects/${p.id}/issues`;
  const make = (body: Record<string, unknown>) => t.post(url, { token: ROOT_TOKEN, body }).then((r) => r.json());
  const at = new Date().toISOString();
  const milestone = await t.deps.db
    .insertInto('milestones')
    .values({ project_id: p.id, group_id: null, iid: 1, title: 'v1', description: null, due_date: null, start_date: null, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  const a = await make({ title: 'alpha crash', labels: 'bug,p1', milestone_id: milestone.id });
  const b = await make({ title: 'beta', labels: 'bug', assignee_ids: [1] });
  const c = await make({ title: 'gamma', description: 'a crash inside' });
  assert.equal(a.milestone.web_url, 'http://quarry.test/filters-group/filters/-/milestones/1');
  assert.equal(a.milestone.expired, null, 'no due date: neither expired nor not');
  await t.put(`${url}/${c.iid}`, { token: ROOT_TOKEN, body: { state_event: 'close' } });
  const ids = async (query: Record<string, string | string[]>) => {
    const res = await t.get(url, { token: ROOT_TOKEN, query });
    assert.equal(res.statusCode, 200, res.body);
    expectEntities(res.json(), IssueEntity);
    return res.json().map((i: { iid: number }) => i.iid);
  };
  assert.deepEqual(await ids({}), [c.iid, b.iid, a.iid]);
  assert.deepEqual(await ids({ sort: 'asc' }), [a.iid, b.iid, c.iid]);
  assert.deepEqual(await ids({ state: 'opened' }), [b.iid, a.iid]);
  assert.deepEqual(await ids({ state: 'closed' }), [c.iid]);
  assert.deepEqual(await ids({ labels: 'bug,p1' }), [a.iid]);
  assert.deepEqual(await ids({ labels: 'None' }), [c.iid]);
  assert.deepEqual(await ids({ labels: 'any' }), [b.iid, a.iid]);
  assert.deepEqual(await ids({ milestone: 'v1' }), [a.iid]);
  assert.deepEqual(await ids({ milestone: 'None' }), [c.iid, b.iid]);
  assert.deepEqual(await ids({ search: 'crash' }), [c.iid, a.iid]);
  assert.deepEqual(await ids({ search: 'crash', in: 'title' }), [a.iid]);
  assert.deepEqual(await ids({ assignee_id: '1' }), [b.iid]);
  assert.deepEqual(await ids({ assignee_id: 'None' }), [c.iid, a.iid]);
  assert.deepEqual(await ids({ 'iids[]': [String(a.iid), String(c.iid)] }), [c.iid, a.iid]);
  assert.deepEqual(await ids({ 'not[labels]': 'p1' }), [c.iid, b.iid]);
  assert.deepEqual(await ids({ author_id: '1', order_by: 'title', sort: 'asc' }), [a.iid, b.iid, c.iid]);
  assert.deepEqual(await ids({ scope: 'assigned_to_me' }), [b.iid]);
  const res = await t.get(url, { token: ROOT_TOKEN, query: { per_page: '2' } });
  assert.equal(res.headers['x-total'], '3');
  assert.equal(res.headers['x-next-page'], '2');
  expectError(await t.get(url, { token: ROOT_TOKEN, query: { author_id: '1', author_username: 'root' } }), 400, { error: 'author_id, author_username are mutually exclusive' });
  const detailed = (await t.get(url, { token: ROOT_TOKEN, query: { with_labels_details: 'true', iids: String(b.iid) } })).json();
  assert.equal(detailed[0].labels[0].name, 'bug');
  assert.equal(detailed[0].labels[0].color, '#428BCA');
  // The group's list and /issues find them too.
  const inGroup = (await t.get(`/api/v4/groups/${group.id}/issues`, { token: ROOT_TOKEN, query: { labels: 'bug' } })).json();
  assert.deepEqual(inGroup.map((i: { id: number }) => i.id), [b.id, a.id]);
  assert.equal(inGroup[0].references.relative, `filters#${b.iid}`, 'relative to the group: the project path');
  const mine = (await t.get('/api/v4/issues', { token: ROOT_TOKEN, query: { search: 'beta' } })).json();
  assert.deepEqual(mine.map((i: { id: number }) => i.id), [b.id]);
  assert.equal(mine[0].references.relative, 'filters-group/filters#' + b.iid);
});

test('/issues: anonymous callers only with scope=all; /issues/:id for administrators', async () => {
  expectError(await t.get('/api/v4/issues'), 401, { message: '401 Unauthorized' });
  const open = await t.get('/api/v4/issues', { query: { scope: 'all' } });
  assert.equal(open.statusCode, 200);
  assert.ok(open.json().every((i: { confidential: boolean }) => !i.confidential));
  const any = (await t.get(base(), { token: ROOT_TOKEN })).json()[0];
  const res = await t.get(`/api/v4/issues/${any.id}`, { token: ROOT_TOKEN });
  assert.equal(res.statusCode, 200);
  expectEntity(res.json(), IssueEntity);
  expectError(await t.get(`/api/v4/issues/${any.id}`, { token: reporter.token }), 403, { message: '403 Forbidden' });
  expectError(await t.get('/api/v4/issues/999999', { token: ROOT_TOKEN }), 404, { message: '404 Not Found' });
});

test('DELETE: owners only; "404 Issue Not Found" for a missing one; notes and links go with it', async () => {
  const issue = (await create({ title: 'Doomed', labels: 'bug' })).json();
  await t.post(`${base()}/${issue.iid}/notes`, { token: ROOT_TOKEN, body: { body: 'bye' } });
  expectError(await t.del(`${base()}/${issue.iid}`, { token: reporter.token }), 403, { message: '403 Forbidden' });
  assert.equal((await t.del(`${base()}/${issue.iid}`, { token: ROOT_TOKEN })).statusCode, 204);
  expectError(await t.del(`${base()}/${issue.iid}`, { token: ROOT_TOKEN }), 404, { message: '404 Issue Not Found' });
  const left = await t.deps.db.selectFrom('notes').select('id').where('noteable_type', '=', 'Issue').where('noteable_id', '=', issue.id).execute();
  assert.deepEqual(left, []);
});

test('notes: comment, list, edit, delete; the comment event; locked discussions; errors', async () => {
  const issue = (await create({ title: 'Talk' })).json();
  const url = `${base()}/${issue.iid}/notes`;
  const res = await t.post(url, { token: outsider.token, body: { body: 'Hello' } });
  assert.equal(res.statusCode, 201, res.body);
  const note = res.json();
  expectEntity(note, NoteEntity);
  assert.equal(note.body, 'Hello');
  assert.equal(note.noteable_iid, issue.iid);
  assert.equal(note.noteable_type, 'Issue');
  assert.equal(note.system, false);
  const event = await t.deps.db.selectFrom('events').selectAll().where('target_type', '=', 'Note').where('target_id', '=', note.id).executeTakeFirst();
  assert.equal(event?.action, 'commented');
  assert.equal((await t.get(`${base()}/${issue.iid}`, { token: ROOT_TOKEN })).json().user_notes_count, 1);
  expectError(await t.post(url, { token: outsider.token, body: { body: '  ' } }), 400, { message: `400 Bad request - Note {:note=>["can't be blank"]}` });
  expectError(await t.post(url, { token: outsider.token, body: {} }), 400, { error: 'body is missing' });
  expectError(await t.get(url), 401, { message: '401 Unauthorized' });
  expectError(await t.get(`${base()}/9999/notes`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
  expectError(await t.put(`${url}/${note.id}`, { token: guest.token, body: { body: 'hijack' } }), 403, { message: '403 Forbidden' });
  const edited = await t.put(`${url}/${note.id}`, { token: outsider.token, body: { body: 'Hello again' } });
  assert.equal(edited.json().body, 'Hello again');
  expectError(await t.put(`${url}/${note.id}`, { token: outsider.token, body: { body: '' } }), 400, { error: 'body is empty' });
  const single = await t.get(`${url}/${note.id}`, { token: reporter.token });
  expectEntity(single.json(), NoteEntity);
  expectError(await t.get(`${url}/999999`, { token: reporter.token }), 404, { message: '404 Not found' });
  await t.put(`${base()}/${issue.iid}`, { token: ROOT_TOKEN, body: { discussion_locked: true } });
  expectError(await t.post(url, { token: outsider.token, body: { body: 'locked out' } }), 403, { message: '403 Forbidden' });
  assert.equal((await t.post(url, { token: reporter.token, body: { body: 'still in' } })).statusCode, 201);
  assert.equal((await t.del(`${url}/${note.id}`, { token: outsider.token })).statusCode, 204);
  const comments = (await t.get(url, { token: ROOT_TOKEN, query: { activity_filter: 'only_comments' } })).json();
  assert.deepEqual(comments.map((n: { body: string }) => n.body), ['still in']);
});

test('a project whose issues are disabled lists none and refuses new ones; private issues need a member', async () => {
  const p = await createProject(t, { path: 'no-issues', visibility: 'public', members: [[guest.user.id, ACCESS.GUEST]] });
  await t.post(`/api/v4/projects/${p.id}/issues`, { token: ROOT_TOKEN, body: { title: 'before' } });
  await t.deps.db.updateTable('project_features').set({ issues_access_level: 10 }).where('project_id', '=', p.id).execute();
  await t.deps.db.updateTable('projects').set({ settings_revision: 'changed' }).where('id', '=', p.id).execute();
  assert.deepEqual((await t.get(`/api/v4/projects/${p.id}/issues`, { token: outsider.token })).json(), []);
  assert.equal((await t.get(`/api/v4/projects/${p.id}/issues`, { token: guest.token })).json().length, 1);
  expectError(await t.post(`/api/v4/projects/${p.id}/issues`, { token: outsider.token, body: { title: 'x' } }), 403, { message: '403 Forbidden' });
  await addMember(t, p, outsider.user.id, ACCESS.GUEST);
  assert.equal((await t.post(`/api/v4/projects/${p.id}/issues`, { token: outsider.token, body: { title: 'x' } })).statusCode, 201);
});

test('a deleted author: the ghost user holds its issues and comments; after a hard delete they have no author', async () => {
  const leaving = await t.user();
  await addMember(t, project, leaving.user.id, ACCESS.GUEST);
  const issue = (await create({ title: 'Orphan' }, leaving.token)).json();
  await t.post(`${base()}/${issue.iid}/notes`, { token: leaving.token, body: { body: 'bye' } });
  assert.equal((await t.del(`/api/v4/users/${leaving.user.id}`, { token: ROOT_TOKEN })).statusCode, 204);
  const kept = (await t.get(`${base()}/${issue.iid}`, { token: ROOT_TOKEN })).json();
  expectEntity(kept, IssueEntity);
  assert.equal(kept.author.username, 'ghost');
  assert.equal(kept.author.name, 'Ghost User');
  const ghost = await t.deps.db.selectFrom('users').selectAll().where('username', '=', 'ghost').executeTakeFirstOrThrow();
  assert.equal(ghost.user_type, 'ghost');
  const note = (await t.get(`${base()}/${issue.iid}/notes`, { token: ROOT_TOKEN, query: { activity_filter: 'only_comments' } })).json()[0];
  assert.equal(note.author.id, ghost.id);

  const gone = await t.user();
  await addMember(t, project, gone.user.id, ACCESS.GUEST);
  const other = (await create({ title: 'Authorless' }, gone.token)).json();
  assert.equal((await t.del(`/api/v4/users/${gone.user.id}`, { token: ROOT_TOKEN, query: { hard_delete: 'true' } })).statusCode, 204);
  const left = (await t.get(`${base()}/${other.iid}`, { token: ROOT_TOKEN })).json();
  expectEntity(left, IssueEntity);
  assert.equal(left.author, null);
  // A second deletion finds the same ghost.
  const third = await t.user();
  await addMember(t, project, third.user.id, ACCESS.GUEST);
  await create({ title: 'Third' }, third.token);
  await t.del(`/api/v4/users/${third.user.id}`, { token: ROOT_TOKEN });
  assert.equal((await t.deps.db.selectFrom('users').select('id').where('user_type', '=', 'ghost').execute()).length, 1);
});
