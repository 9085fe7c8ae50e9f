// To-do items of merge requests: `assigned` and `review_requested` for new assignees and
// reviewers, mentions, `marked`; `build_failed` when the head pipeline fails (for the author and
// whoever set it to merge when the pipeline succeeds, done again by a retry), `unmergeable` when
// that automatic merge cannot happen; done for the user who closes, merges or pushes to it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CiProject, ciProject } from '../../../test/ci/fixtures.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { statementsDuring } from '../../../test/sql-spy.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { MergeRequestTodoEntity, TodoEntity } from './todo-list.schemas.ts';

let t: TestApp;
let dev: TestUser;
let reviewer: TestUser;
let guest: TestUser;
let ci: CiProject;
let runner: string;

before(async () => {
  t = await createTestApp();
  ci = await ciProject(t);
  await ci.commitConfig('build: {script: echo build}\n');
  runner = await ci.registerRunner();
  // The main branch's own pipeline is out of the way.
  const job = await ci.takeJob(runner);
  if (job) await ci.finishJob(job, 'success');
  dev = await t.user();
  reviewer = await t.user();
  guest = await t.user();
  for (const [user, level] of [[dev, 40], [reviewer, 30], [guest, 10]] as const) {
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/members`, { token: ci.owner.token, body: { user_id: user.user.id, access_level: level } }), 201);
  }
});
after(() => t.close());

let sequence = 0;
/** A commit of `file` (a new one by default) on `branch`, created from main when new, by `user`; then the background work. */
async function push(branch: string, user: TestUser = ci.owner, file = `file-${++sequence}.txt`, content = 'x'): Promise<string> {
  const exists = (await t.get(`/api/v4/projects/${ci.projectId}/repository/branches/${branch}`, { token: user.token })).statusCode === 200;
  const res = await t.post(`/api/v4/projects/${ci.projectId}/repository/commits`, {
    token: user.token,
    body: { branch, ...(exists ? {} : { start_branch: 'main' }), commit_message: `Change ${++sequence}`, actions: [{ action: 'create', file_path: file, content }] },
  });
  expectStatus(res, 201);
  await t.runJobs();
  return res.json().id;
}

const mrUrl = (iid: number, tail = '') => `/api/v4/projects/${ci.projectId}/merge_requests/${iid}${tail}`;

async function openMergeRequest(source: string, body: Record<string, unknown> = {}, token = ci.owner.token): Promise<{ id: number; iid: number }> {
  const res = await t.post(`/api/v4/projects/${ci.projectId}/merge_requests`, { token, body: { title: `Change ${source}`, source_branch: source, target_branch: 'main', ...body } });
  expectStatus(res, 201);
  await t.runJobs();
  return res.json();
}

/** The user's to-dos on one merge request, as [action, author id, state], newest first. */
async function todosOn(user: TestUser, mr: { id: number }, state = 'pending') {
  const res = await t.get('/api/v4/todos', { token: user.token, query: { type: 'MergeRequest', state, per_page: '100' } });
  expectStatus(res, 200);
  expectEntities(res.json(), TodoEntity);
  for (const todo of res.json()) expectEntity(todo, MergeRequestTodoEntity);
  return res.json().filter((todo: { target: { id: number } }) => todo.target.id === mr.id).map((todo: { action_name: string; author: { id: number } }) => [todo.action_name, todo.author.id]);
}

/** Takes pending jobs until the one at `sha`; the others succeed. */
async function takeAt(sha: string) {
  for (;;) {
    const job = await ci.takeJob(runner);
    assert.ok(job, `no pending job at ${sha}`);
    if ((job.git_info as { sha: string }).sha === sha) return job;
    await ci.finishJob(job, 'success');
  }
}

describe('to-dos of merge requests', () => {
  test('new assignees get `assigned`, new reviewers `review_requested`, the mentioned theirs; the target is the merge request entity', async () => {
    await push('people');
    const mr = await openMergeRequest('people', { assignee_ids: [dev.user.id], reviewer_ids: [reviewer.user.id], description: `@${guest.user.username} FYI` });
    assert.deepEqual(await todosOn(dev, mr), [['assigned', ci.owner.user.id]]);
    assert.deepEqual(await todosOn(reviewer, mr), [['review_requested', ci.owner.user.id]]);
    assert.deepEqual(await todosOn(guest, mr), [], 'a guest of a private project may not read merge requests');

    const [todo] = (await t.get('/api/v4/todos', { token: dev.token })).json();
    expectEntity(todo, MergeRequestTodoEntity);
    assert.equal(todo.target_url, `http://quarry.test/${todo.project.path_with_namespace}/-/merge_requests/${mr.iid}`);
    assert.equal(todo.body, 'Change people');
    for (const key of ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'target_branch', 'source_branch', 'upvotes', 'downvotes', 'author', 'assignee', 'source_project_id', 'target_project_id', 'labels', 'draft', 'work_in_progress', 'milestone', 'merge_when_pipeline_succeeds', 'merge_status', 'subscribed', 'user_notes_count']) {
      assert.ok(key in todo.target, `the target has ${key}`);
    }
    assert.equal(todo.target.subscribed, false);
    assert.equal(todo.target.references.relative, `!${mr.iid}`);

    // Edits: only the added reviewer gets one; a reviewer added again gets none while theirs is pending.
    expectStatus(await t.put(mrUrl(mr.iid), { token: ci.owner.token, body: { reviewer_ids: [reviewer.user.id, dev.user.id] } }), 200);
    assert.deepEqual(await todosOn(dev, mr), [['review_requested', ci.owner.user.id], ['assigned', ci.owner.user.id]]);
    assert.deepEqual(await todosOn(reviewer, mr), [['review_requested', ci.owner.user.id]]);

    // A comment mentioning the reviewer, by the assignee: the assignee's own are done.
    expectStatus(await t.post(mrUrl(mr.iid, '/notes'), { token: dev.token, body: { body: `@${reviewer.user.username} ready` } }), 201);
    assert.deepEqual(await todosOn(dev, mr), []);
    assert.deepEqual(await todosOn(reviewer, mr), [['directly_addressed', dev.user.id], ['review_requested', ci.owner.user.id]]);
  });

  test('closing, merging and pushing mark the acting user’s to-dos done; deleting the merge request deletes them all', async () => {
    await push('closing');
    const closing = await openMergeRequest('closing', { assignee_ids: [ci.owner.user.id, dev.user.id] });
    expectStatus(await t.put(mrUrl(closing.iid), { token: ci.owner.token, body: { state_event: 'close' } }), 200);
    assert.deepEqual(await todosOn(ci.owner, closing), []);
    assert.deepEqual(await todosOn(dev, closing), [['assigned', ci.owner.user.id]]);
    expectStatus(await t.del(mrUrl(closing.iid), { token: ci.owner.token }), 204);
    assert.deepEqual(await todosOn(dev, closing), []);
    assert.deepEqual(await todosOn(ci.owner, closing, 'done'), []);

    const sha = await push('pushing');
    const pushing = await openMergeRequest('pushing', { assignee_ids: [dev.user.id, reviewer.user.id] });
    await ci.finishJob(await takeAt(sha), 'success');
    await push('pushing', dev);
    assert.deepEqual(await todosOn(dev, pushing), [], 'the pusher’s are done');
    assert.deepEqual(await todosOn(dev, pushing, 'done'), [['assigned', ci.owner.user.id]]);
    assert.deepEqual(await todosOn(reviewer, pushing), [['assigned', ci.owner.user.id]]);

    await push('merging');
    const merged = await openMergeRequest('merging', { assignee_ids: [ci.owner.user.id, dev.user.id] });
    expectStatus(await t.put(mrUrl(merged.iid, '/merge'), { token: ci.owner.token }), 200);
    assert.deepEqual(await todosOn(ci.owner, merged), []);
    assert.deepEqual(await todosOn(dev, merged), [['assigned', ci.owner.user.id]]);
  });

  test('POST …/merge_requests/:iid/todo: 201, then 304 while pending; refusals', async () => {
    await push('marking');
    const mr = await openMergeRequest('marking');
    const url = mrUrl(mr.iid, '/todo');
    const res = await t.post(url, { token: reviewer.token });
    expectStatus(res, 201);
    expectEntity(res.json(), MergeRequestTodoEntity);
    assert.equal(res.json().action_name, 'marked');
    assert.equal(res.json().target.iid, mr.iid);
    expectStatus(await t.post(url, { token: reviewer.token }), 304);
    const stranger = await t.user();
    expectError(await t.post(url), 401, { message: '401 Unauthorized' });
    expectError(await t.post(url, { token: stranger.token }), 404, { message: '404 Project Not Found' });
    expectError(await t.post(url, { token: guest.token }), 404, { message: '404 Not found' });
    expectError(await t.post(mrUrl(9999, '/todo'), { token: reviewer.token }), 404, { message: '404 Not found' });
    expectError(await t.post(mrUrl(0, '/todo').replace('/0/', '/x/'), { token: reviewer.token }), 400, { error: 'merge_request_iid is invalid' });
  });
});

describe('to-dos of merge request pipelines and automatic merges', () => {
  test('a failed head pipeline: `build_failed` for the author and whoever set it to merge, by themselves; a retry marks them done', async () => {
    const sha = await push('failing');
    const mr = await openMergeRequest('failing', {}, dev.token);
    expectStatus(await t.put(mrUrl(mr.iid, '/merge'), { token: ci.owner.token, body: { merge_when_pipeline_succeeds: true } }), 200);
    const job = await takeAt(sha);
    await ci.finishJob(job, 'failed');
    assert.deepEqual(await todosOn(dev, mr), [['build_failed', dev.user.id]]);
    assert.deepEqual(await todosOn(ci.owner, mr), [['build_failed', ci.owner.user.id]]);
    assert.deepEqual(await todosOn(reviewer, mr), []);

    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/jobs/${job.id}/retry`, { token: ci.owner.token }), 201);
    await t.runJobs();
    assert.deepEqual(await todosOn(dev, mr), []);
    assert.deepEqual(await todosOn(ci.owner, mr), []);
    assert.deepEqual(await todosOn(dev, mr, 'done'), [['build_failed', dev.user.id]]);

    // Failing again makes new ones; a pipeline of a branch without merge requests makes none.
    await ci.finishJob(await takeAt(sha), 'failed');
    assert.deepEqual(await todosOn(dev, mr), [['build_failed', dev.user.id]]);
    const lone = await push('lonely');
    await ci.finishJob(await takeAt(lone), 'failed');
    const all = (await t.get('/api/v4/todos', { token: ci.owner.token, query: { action: 'build_failed' } })).json();
    assert.deepEqual(all.map((todo: { target: { id: number } }) => todo.target.id), [mr.id]);
  });

  test('an automatic merge that cannot happen: `unmergeable` for the author and the user who set it', async () => {
    const sha = await push('conflicting', ci.owner, 'shared.txt', 'from the branch');
    const mr = await openMergeRequest('conflicting', {}, reviewer.token);
    expectStatus(await t.put(mrUrl(mr.iid, '/merge'), { token: dev.token, body: { merge_when_pipeline_succeeds: true } }), 200);
    // The same file on main: the branch no longer merges.
    await push('main', ci.owner, 'shared.txt', 'from main');
    await ci.finishJob(await takeAt(sha), 'success');
    const after = (await t.get(mrUrl(mr.iid), { token: dev.token })).json();
    assert.equal(after.state, 'opened');
    assert.equal(after.merge_when_pipeline_succeeds, false);
    assert.deepEqual(await todosOn(reviewer, mr), [['unmergeable', reviewer.user.id]]);
    assert.deepEqual(await todosOn(dev, mr), [['unmergeable', dev.user.id]]);
    assert.deepEqual(await todosOn(ci.owner, mr), []);
  });
});

describe('a page of to-dos on issues and merge requests', () => {
  test('shows each target as its own entity, with what both kinds name read once for the page', async () => {
    const watcher = await t.user();
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/members`, { token: ci.owner.token, body: { user_id: watcher.user.id, access_level: 30 } }), 201);
    await push('mixed-page');
    const mr = await openMergeRequest('mixed-page', { assignee_ids: [dev.user.id], reviewer_ids: [watcher.user.id], labels: 'page-b,page-a' });
    const issueRes = await t.post(`/api/v4/projects/${ci.projectId}/issues`, { token: ci.owner.token, body: { title: 'Mixed page', assignee_ids: [watcher.user.id, dev.user.id], labels: 'page-c' } });
    expectStatus(issueRes, 201);
    const issue = issueRes.json();
    expectStatus(await t.post(`/api/v4/projects/${ci.projectId}/issues/${issue.iid}/notes`, { token: dev.token, body: { body: 'A comment' } }), 201);
    expectStatus(await t.post(mrUrl(mr.iid, '/notes'), { token: dev.token, body: { body: 'One' } }), 201);
    expectStatus(await t.post(mrUrl(mr.iid, '/notes'), { token: dev.token, body: { body: 'Two' } }), 201);
    await t.runJobs();

    const list = () => t.get('/api/v4/todos', { token: watcher.token, query: { per_page: '100' } });
    const statements = await statementsDuring(t, list);
    const res = await list();
    expectStatus(res, 200);
    expectEntities(res.json(), TodoEntity);
    const byType = new Map(res.json().map((todo: { target_type: string }) => [todo.target_type, todo]));
    const onIssue = byType.get('Issue') as { action_name: string; target: Record<string, unknown> };
    const onMr = byType.get('MergeRequest') as { action_name: string; target: Record<string, unknown> };
    assert.equal(onIssue.action_name, 'assigned');
    assert.equal(onMr.action_name, 'review_requested');
    expectEntity(onMr, MergeRequestTodoEntity);
    // The targets as the issue and the merge request present them (a to-do shows the issue with subscribed false).
    const shownIssue = (await t.get(`/api/v4/projects/${ci.projectId}/issues/${issue.iid}`, { token: watcher.token })).json();
    assert.deepEqual(onIssue.target, { ...shownIssue, subscribed: false });
    const ids = (users: unknown) => (users as { id: number }[]).map((u) => u.id);
    assert.deepEqual([ids(onMr.target.assignees), ids(onMr.target.reviewers)], [[dev.user.id], [watcher.user.id]]);
    assert.deepEqual(onMr.target.labels, ['page-a', 'page-b']);
    assert.equal(onMr.target.user_notes_count, 2);
    assert.equal(onIssue.target.user_notes_count, 1);
    // One query each for the users, the labels and the comment counts of both kinds.
    const reading = (table: string) => statements.filter((sql) => new RegExp(`from "${table}"`).test(sql)).length;
    assert.equal(reading('users'), 1);
    assert.equal(reading('label_links'), 1);
    assert.equal(statements.filter((sql) => /count\(\*\) as "n" from "notes"/.test(sql)).length, 1);
  });
});

test('the counters of the lists (todo_counts) agree with the to-dos after all of the above', async () => {
  const counted = await t.deps.db.selectFrom('todos').select(['user_id', 'state', 'project_id', (eb) => eb.fn.countAll<number>().as('todos')]).groupBy(['user_id', 'state', 'project_id']).execute();
  const kept = await t.deps.db.selectFrom('todo_counts').selectAll().where('todos', '!=', 0).execute();
  const key = (r: { user_id: number; state: string; project_id: number; todos: number | string }) => `${r.user_id}/${r.state}/${r.project_id}=${Number(r.todos)}`;
  assert.deepEqual(kept.map(key).sort(), counted.map(key).sort());
});
