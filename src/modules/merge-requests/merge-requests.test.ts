// Merge requests on real repositories: creation with the platform's refusals, the entities, the
// list filters, edits with their notes and events, commits and changes, the merge status check
// after pushes, and merges (merge commits, fast-forward rules, squash, protected targets,
// conflicts, stale shas, issues closed by the description).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, unprotectDefaultBranch } from '../../../test/factories.ts';
import { AUTHOR, commitOn } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { updateProjectSettings } from '../../domain/settings/project-settings.ts';
import { createCommit, getCommit } from '../../git/commits.ts';
import { resolveRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { MergeRequestBasicEntity, MergeRequestChangesEntity, MergeRequestEntity, MergeRequestSimpleEntity } from './merge-requests.schemas.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: ProjectRow;
let dir: string;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'mr-owner', name: 'Olga Owner' });
  developer = await t.user({ username: 'mr-dev' });
  reporter = await t.user({ username: 'mr-rep' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Merges', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  await unprotectDefaultBranch(t, res.json());
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
});
after(() => t.close());

const base = () => `/api/v4/projects/${project.id}/merge_requests`;
const create = (body: Record<string, unknown>, token = developer.token) => t.post(base(), { token, body });
let sequence = 0;
/** A new branch off main with one commit of its own. */
async function branch(prefix = 'feature'): Promise<{ name: string; head: string }> {
  const name = `${prefix}-${++sequence}`;
  const head = await commitOn(dir, name, { from: 'main' });
  return { name, head };
}
/** A commit writing `content` into `file` on a branch. */
async function write(name: string, file: string, content: string, from?: string): Promise<string> {
  const exists = (await getCommit(dir, from ?? name)) !== null && (await t.get(`/api/v4/projects/${project.id}/repository/files/${encodeURIComponent(file)}?ref=${from ?? name}`, { token: ROOT_TOKEN })).statusCode === 200;
  const made = await createCommit(dir, { branch: name, startRevision: from, actions: [{ action: exists ? 'update' : 'create', path: file, content }], message: `Write ${file}`, author: AUTHOR });
  return made.id;
}
const head = async (name: string) => (await resolveRef(dir, `refs/heads/${name}`)) as string;
async function open(title = 'A change', extra: Record<string, unknown> = {}): Promise<{ iid: number; source: string; sha: string }> {
  const b = await branch();
  const res = await create({ title, source_branch: b.name, target_branch: 'main', ...extra });
  expectStatus(res, 201);
  await t.runJobs();
  return { iid: res.json().iid, source: b.name, sha: b.head };
}
const get = async (iid: number, token = developer.token) => (await t.get(`${base()}/${iid}`, { token })).json();

describe('POST /projects/:id/merge_requests', () => {
  test('creates a merge request with the next iid, its diff refs, labels and people, unchecked until the check runs', async () => {
    const b = await branch();
    const main = await head('main');
    const res = await create({ title: 'Add a file', description: 'Body\n- [x] done\n- [ ] todo', source_branch: b.name, target_branch: 'main', labels: 'bug,ui', assignee_ids: [developer.user.id], reviewer_ids: [reporter.user.id], remove_source_branch: true });
    assert.equal(res.statusCode, 201, res.body);
    const mr = res.json();
    expectEntity(mr, MergeRequestEntity);
    assert.equal(mr.state, 'opened');
    assert.equal(mr.merge_status, 'unchecked');
    assert.equal(mr.sha, b.head);
    assert.deepEqual(mr.diff_refs, { base_sha: main, head_sha: b.head, start_sha: main });
    assert.deepEqual(mr.labels, ['bug', 'ui']);
    assert.deepEqual(mr.assignees.map((u: { id: number }) => u.id), [developer.user.id]);
    assert.equal(mr.assignee.id, developer.user.id);
    assert.deepEqual(mr.reviewers.map((u: { id: number }) => u.id), [reporter.user.id]);
    assert.equal(mr.author.id, developer.user.id);
    assert.equal(mr.force_remove_source_branch, true);
    assert.equal(mr.changes_count, '1');
    assert.deepEqual(mr.task_completion_status, { count: 2, completed_count: 1 });
    assert.equal(mr.references.full, `${project.full_path}!${mr.iid}`);
    assert.equal(mr.reference, `!${mr.iid}`);
    assert.equal(mr.web_url, `http://quarry.test/${project.full_path}/-/merge_requests/${mr.iid}`);
    assert.equal(mr.source_project_id, project.id);
    assert.equal(mr.user.can_merge, true);
    assert.equal(mr.subscribed, true);
    assert.equal(mr.first_contribution, false, 'a developer is a member above Guest');
    await t.runJobs();
    const checked = await get(mr.iid);
    assert.equal(checked.merge_status, 'can_be_merged');
    assert.equal(checked.has_conflicts, false);
    const event = await t.deps.db.selectFrom('events').selectAll().where('target_type', '=', 'MergeRequest').where('target_id', '=', mr.id).executeTakeFirstOrThrow();
    assert.equal(event.action, 'created');
    const second = await open();
    assert.equal(second.iid, mr.iid + 1);
  });

  test('the platform refusals: same branch, missing branches, another open merge request, title', async () => {
    const b = await branch();
    expectError(await create({ title: 'x', source_branch: 'main', target_branch: 'main' }), 422, { message: ["You can't use same project/branch for source and target"] });
    expectError(await create({ title: 'x', source_branch: 'nope', target_branch: 'gone' }), 422, { message: ['Source branch "nope" does not exist', 'Target branch "gone" does not exist'] });
    expectError(await create({ source_branch: b.name, target_branch: 'main' }), 400, { error: 'title is missing' });
    expectError(await create({ title: 'x', target_branch: 'main' }), 400, { error: 'source_branch is missing' });
    expectError(await create({ title: ' ', source_branch: b.name, target_branch: 'main' }), 400, { message: { title: ["can't be blank"] } });
    const first = await create({ title: 'first', source_branch: b.name, target_branch: 'main' });
    expectStatus(first, 201);
    expectError(await create({ title: 'again', source_branch: b.name, target_branch: 'main' }), 409, { message: [`Another open merge request already exists for this source branch: !${first.json().iid}`] });
    expectError(await create({ title: 'reporter', source_branch: b.name, target_branch: 'main' }, reporter.token), 403, { message: '403 Forbidden' });
  });

  test('a draft title marks the merge request as a draft', async () => {
    for (const title of ['Draft: x', '[Draft] x', '(Draft) x', 'WIP: x', 'draft: lower']) {
      const b = await branch();
      const mr = (await create({ title, source_branch: b.name, target_branch: 'main' })).json();
      assert.equal(mr.draft, true, title);
      assert.equal(mr.work_in_progress, true, title);
    }
    const b = await branch();
    assert.equal((await create({ title: 'Drafting a plan', source_branch: b.name, target_branch: 'main' })).json().draft, false);
  });
});

describe('lists', () => {
  let tagged: number;
  before(async () => {
    tagged = (await open('Searchable needle', { labels: 'listed', assignee_ids: [developer.user.id], reviewer_ids: [reporter.user.id] })).iid;
  });

  test('GET filters: state, labels, None/Any, search, branches, wip, iids, people, not[]', async () => {
    const list = async (query: Record<string, string | string[]>) => {
      const res = await t.get(base(), { token: developer.token, query });
      expectStatus(res, 200);
      expectEntities(res.json(), MergeRequestBasicEntity);
      return (res.json() as { iid: number }[]).map((m) => m.iid);
    };
    assert.deepEqual(await list({ labels: 'listed' }), [tagged]);
    assert.ok(!(await list({ labels: 'None' })).includes(tagged));
    assert.ok((await list({ labels: 'Any' })).includes(tagged));
    assert.deepEqual(await list({ search: 'needle' }), [tagged]);
    assert.deepEqual(await list({ search: 'needle', in: 'description' }), []);
    assert.deepEqual(await list({ 'iids[]': [String(tagged)] }), [tagged]);
    assert.deepEqual(await list({ reviewer_username: reporter.user.username, labels: 'listed' }), [tagged]);
    assert.ok((await list({ assignee_id: String(developer.user.id) })).includes(tagged));
    assert.ok(!(await list({ assignee_id: 'None' })).includes(tagged));
    assert.ok(!(await list({ 'not[labels]': 'listed' })).includes(tagged));
    const mine = await get(tagged);
    assert.deepEqual(await list({ source_branch: mine.source_branch }), [tagged]);
    assert.ok((await list({ wip: 'yes' })).every((iid) => iid !== tagged));
    assert.ok((await list({ wip: 'no' })).includes(tagged));
    assert.ok((await list({ state: 'opened' })).includes(tagged));
    assert.deepEqual(await list({ state: 'merged', labels: 'listed' }), []);
    assert.deepEqual(await list({ author_username: 'nobody-at-all' }), []);
  });

  test('pagination in the database, order by title, and the label counts', async () => {
    const res = await t.get(base(), { token: developer.token, query: { per_page: '2', order_by: 'title', sort: 'asc' } });
    expectStatus(res, 200);
    assert.equal(res.json().length, 2);
    assert.ok(Number(res.headers['x-total']) > 2);
    const titles = res.json().map((m: { title: string }) => m.title);
    assert.deepEqual(titles, [...titles].sort());
    const labels = (await t.get(`/api/v4/projects/${project.id}/labels`, { token: developer.token, query: { with_counts: 'true', search: 'listed' } })).json();
    assert.equal(labels[0].open_merge_requests_count, 1);
  });

  test('view=simple shows little of each', async () => {
    const res = await t.get(base(), { token: developer.token, query: { view: 'simple', labels: 'listed' } });
    expectStatus(res, 200);
    expectEntities(res.json(), MergeRequestSimpleEntity);
    assert.deepEqual(Object.keys(res.json()[0]).sort(), ['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
    assert.equal((await t.get(`${base()}/${tagged}`, { token: developer.token, query: { include_rebase_in_progress: 'true' } })).json().rebase_in_progress, false);
  });

  test('/merge_requests is the caller’s own by default; anonymous callers ask for scope=all', async () => {
    const mine = (await t.get('/api/v4/merge_requests', { token: developer.token })).json();
    assert.ok(mine.length > 0);
    assert.ok(mine.every((m: { author: { id: number } }) => m.author.id === developer.user.id));
    assert.equal((await t.get('/api/v4/merge_requests', { token: reporter.token })).json().length, 0);
    expectError(await t.get('/api/v4/merge_requests'), 401, { message: '401 Unauthorized' });
    const all = await t.get('/api/v4/merge_requests', { query: { scope: 'all' } });
    expectStatus(all, 200);
    expectEntities(all.json(), MergeRequestBasicEntity);
    assert.ok(all.json().some((m: { iid: number }) => m.iid === tagged));
  });
});

describe('PUT /projects/:id/merge_requests/:iid', () => {
  test('edits the title (draft), labels, people; closes and reopens with notes and events', async () => {
    const { iid } = await open('Plain');
    const put = (body: Record<string, unknown>, token = developer.token) => t.put(`${base()}/${iid}`, { token, body });
    let res = await put({ title: 'Draft: Plain', add_labels: 'one,two', assignee_ids: [reporter.user.id], squash: true, discussion_locked: true });
    expectStatus(res, 200);
    expectEntity(res.json(), MergeRequestEntity);
    assert.equal(res.json().draft, true);
    assert.deepEqual(res.json().labels, ['one', 'two']);
    assert.equal(res.json().squash, true);
    assert.equal(res.json().discussion_locked, true);
    res = await put({ remove_labels: 'one', state_event: 'close' });
    assert.equal(res.json().state, 'closed');
    assert.equal(res.json().closed_by.id, developer.user.id);
    assert.deepEqual(res.json().labels, ['two']);
    res = await put({ state_event: 'reopen' });
    assert.equal(res.json().state, 'opened');
    assert.equal(res.json().closed_by, null);
    const notes = (await t.get(`${base()}/${iid}/notes`, { token: developer.token, query: { sort: 'asc' } })).json();
    expectEntities(notes, NoteEntity);
    const bodies = notes.map((n: { body: string }) => n.body);
    assert.ok(bodies.includes('closed') && bodies.includes('reopened') && bodies.includes('marked this merge request as **draft**'), bodies.join(' | '));
    const mr = await get(iid);
    const actions = (await t.deps.db.selectFrom('events').select('action').where('target_type', '=', 'MergeRequest').where('target_id', '=', mr.id).execute()).map((e) => e.action);
    assert.deepEqual(actions.sort(), ['closed', 'created', 'reopened']);
    expectError(await put({}), 400, { error: 'assignee_id, assignee_ids, reviewer_ids, description, labels, add_labels, remove_labels, milestone_id, remove_source_branch, state_event, target_branch, title, discussion_locked, squash are missing, at least one parameter must be provided' });
    // The assignee may edit; a reporter who is neither author nor assignee may not.
    expectStatus(await put({ title: 'by the assignee' }, reporter.token), 200);
    const other = await open('Not theirs');
    expectError(await t.put(`${base()}/${other.iid}`, { token: reporter.token, body: { title: 'x' } }), 403, { message: '403 Forbidden' });
  });

  test('DELETE is for owners', async () => {
    const { iid } = await open();
    expectError(await t.del(`${base()}/${iid}`, { token: developer.token }), 403, { message: '403 Forbidden' });
    expectStatus(await t.del(`${base()}/${iid}`, { token: owner.token }), 204);
    expectError(await t.get(`${base()}/${iid}`, { token: owner.token }), 404, { message: '404 Not found' });
  });
});

describe('commits and changes', () => {
  test('the commits of the source branch not in the target, newest first and paginated', async () => {
    const b = await branch();
    const second = await commitOn(dir, b.name);
    const mr = (await create({ title: 'Two commits', source_branch: b.name, target_branch: 'main' })).json();
    const res = await t.get(`${base()}/${mr.iid}/commits`, { token: developer.token, query: { per_page: '1' } });
    expectStatus(res, 200);
    expectEntities(res.json(), CommitEntity);
    assert.deepEqual(res.json().map((c: { id: string }) => c.id), [second]);
    assert.equal(res.headers['x-total'], '2');
    const page2 = await t.get(`${base()}/${mr.iid}/commits`, { token: developer.token, query: { per_page: '1', page: '2' } });
    assert.deepEqual(page2.json().map((c: { id: string }) => c.id), [b.head]);
  });

  test('changes: every file with its patch, new, renamed and deleted', async () => {
    const name = `changes-${++sequence}`;
    await write(name, 'edit.txt', 'one\ntwo\n', 'main');
    const from = await head(name);
    await createCommit(dir, { branch: name, actions: [{ action: 'update', path: 'edit.txt', content: 'one\nthree\n' }, { action: 'move', path: 'moved.md', previousPath: 'README.md' }, { action: 'create', path: 'new.txt', content: 'new\n' }], message: 'many', author: AUTHOR });
    const target = `base-${sequence}`;
    await createCommit(dir, { branch: target, startRevision: from, actions: [{ action: 'create', path: 'unrelated.txt', content: 'x' }], message: 'target', author: AUTHOR });
    const mr = (await create({ title: 'Changes', source_branch: name, target_branch: target })).json();
    const res = await t.get(`${base()}/${mr.iid}/changes`, { token: developer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), MergeRequestChangesEntity);
    assert.equal(res.json().overflow, false);
    const byPath = new Map(res.json().changes.map((c: { new_path: string }) => [c.new_path, c]));
    assert.deepEqual(byPath.get('edit.txt'), { old_path: 'edit.txt', new_path: 'edit.txt', a_mode: '100644', b_mode: '100644', new_file: false, renamed_file: false, deleted_file: false, diff: '@@ -1,2 +1,2 @@\n one\n-two\n+three\n' });
    assert.deepEqual(byPath.get('moved.md'), { old_path: 'README.md', new_path: 'moved.md', a_mode: '100644', b_mode: '100644', new_file: false, renamed_file: true, deleted_file: false, diff: '' });
    assert.equal((byPath.get('new.txt') as { new_file: boolean; a_mode: string }).new_file, true);
    assert.equal((byPath.get('new.txt') as { a_mode: string }).a_mode, '0');
    assert.equal(res.json().changes_count, '3');
    const raw = await t.get(`${base()}/${mr.iid}/changes`, { token: developer.token, query: { access_raw_diffs: 'true' } });
    assert.equal(raw.json().changes.length, 3);
  });
});

describe('the merge status check', () => {
  test('a push to the target that conflicts makes it cannot_be_merged; the single GET asks for a check', async () => {
    const name = `conflict-${++sequence}`;
    await write(name, 'shared.txt', 'source side\n', 'main');
    const target = `target-${sequence}`;
    await write(target, 'other.txt', 'x\n', 'main');
    const mr = (await create({ title: 'Conflicting later', source_branch: name, target_branch: target })).json();
    await t.runJobs();
    assert.equal((await get(mr.iid)).merge_status, 'can_be_merged');
    // A push through the API runs the post-push work, which unchecks and rechecks.
    const res = await t.post(`/api/v4/projects/${project.id}/repository/commits`, {
      token: developer.token,
      body: { branch: target, commit_message: 'target side', actions: [{ action: 'create', file_path: 'shared.txt', content: 'target side\n' }] },
    });
    expectStatus(res, 201);
    assert.equal((await t.deps.db.selectFrom('merge_requests').select('merge_status').where('id', '=', mr.id).executeTakeFirstOrThrow()).merge_status, 'unchecked');
    await t.runJobs();
    const after = await get(mr.iid);
    assert.equal(after.merge_status, 'cannot_be_merged');
    assert.equal(after.has_conflicts, true);
    assert.equal(after.diff_refs.start_sha, res.json().id);
    // Unchecked again: a single GET enqueues a check.
    await t.deps.db.updateTable('merge_requests').set({ merge_status: 'unchecked' }).where('id', '=', mr.id).execute();
    await get(mr.iid);
    assert.ok((await t.runJobs()).length > 0);
    assert.equal((await get(mr.iid)).merge_status, 'cannot_be_merged');
  });
});

describe('PUT /projects/:id/merge_requests/:iid/merge', () => {
  const merge = (iid: number, body: Record<string, unknown> = {}, token = developer.token) => t.put(`${base()}/${iid}/merge`, { token, body });
  const setMethod = (merge_method: 'merge' | 'ff' | 'rebase_merge') => updateProjectSettings(t.deps.db, project.id, { settings: { merge_method } });

  test('a merge commit on the target with the default message; the source branch removed; push event and merged event', async () => {
    await setMethod('merge');
    const { iid, source, sha } = await open('Merge me', { remove_source_branch: true });
    const before = await head('main');
    const res = await merge(iid, { sha });
    expectStatus(res, 200);
    const mr = res.json();
    expectEntity(mr, MergeRequestEntity);
    assert.equal(mr.state, 'merged');
    assert.equal(mr.merged_by.id, developer.user.id);
    assert.equal(mr.merge_user.id, developer.user.id);
    assert.ok(mr.merged_at);
    const main = await head('main');
    assert.equal(mr.merge_commit_sha, main);
    const commit = (await getCommit(dir, main))!;
    assert.deepEqual(commit.parents, [before, sha]);
    assert.equal(commit.message.trim(), `Merge branch '${source}' into 'main'\n\nMerge me\n\nSee merge request ${project.full_path}!${iid}`);
    assert.equal(await resolveRef(dir, `refs/heads/${source}`), null, 'the source branch was removed');
    assert.equal(mr.should_remove_source_branch, true);
    const events = await t.deps.db.selectFrom('events').selectAll().where('project_id', '=', project.id).orderBy('id', 'desc').limit(5).execute();
    assert.ok(events.some((e) => e.action === 'merged' && e.target_type === 'MergeRequest' && e.target_id === mr.id));
    assert.ok(events.some((e) => e.action === 'pushed'));
    expectError(await merge(iid), 405, { message: '405 Method Not Allowed' });
  });

  test('refusals in order: 401 for a reporter, 405 for a draft, 409 for a stale sha, 406 for a conflict', async () => {
    await setMethod('merge');
    const { iid } = await open('Refused');
    expectError(await merge(iid, {}, reporter.token), 401, { message: '401 Unauthorized' });
    expectError(await merge(iid, { sha: '0'.repeat(40) }), 409, { message: `SHA does not match HEAD of source branch: ${(await get(iid)).sha}` });
    const draft = await open('Draft: not yet');
    expectError(await merge(draft.iid), 405, { message: '405 Method Not Allowed' });
    // A conflict found at merge time: 406, then the merge request reads cannot_be_merged (405 from then on).
    const name = `clash-${++sequence}`;
    await write(name, 'clash.txt', 'mine\n', 'main');
    const clash = (await create({ title: 'Clash', source_branch: name, target_branch: 'main' })).json();
    await write('main', 'clash.txt', 'theirs\n');
    expectError(await merge(clash.iid), 406, { message: 'Branch cannot be merged' });
    assert.equal((await get(clash.iid)).merge_status, 'cannot_be_merged');
    expectError(await merge(clash.iid), 405, { message: '405 Method Not Allowed' });
    expectError(await merge(99999), 404, { message: '404 Not found' });
  });

  test('fast-forward only: refused unless the source is on the target, then the target moves to the source', async () => {
    await setMethod('ff');
    const behind = await open('Behind');
    await commitOn(dir, 'main');
    expectError(await merge(behind.iid), 406, { message: 'Branch cannot be merged' });
    const ahead = await open('Ahead');
    const res = await merge(ahead.iid);
    expectStatus(res, 200);
    assert.equal(await head('main'), ahead.sha);
    assert.equal(res.json().merge_commit_sha, null);
    await setMethod('rebase_merge');
    const behindAgain = await open('Rebase needed');
    await commitOn(dir, 'main');
    expectError(await merge(behindAgain.iid), 406, { message: 'Branch cannot be merged' });
    const fresh = await open('Rebased');
    expectStatus(await merge(fresh.iid), 200);
    assert.deepEqual((await getCommit(dir, await head('main')))!.parents.at(-1), fresh.sha);
    await setMethod('merge');
  });

  test('squash: one commit by the author with the squash message, then the merge commit', async () => {
    await setMethod('merge');
    const b = await branch();
    await commitOn(dir, b.name);
    const mr = (await create({ title: 'Squash me', source_branch: b.name, target_branch: 'main' })).json();
    const before = await head('main');
    const res = await merge(mr.iid, { squash: true, squash_commit_message: 'All in one' });
    expectStatus(res, 200);
    const squashed = (await getCommit(dir, res.json().squash_commit_sha))!;
    assert.equal(squashed.message.trim(), 'All in one');
    assert.deepEqual(squashed.parents, [before]);
    assert.deepEqual((await getCommit(dir, await head('main')))!.parents, [before, squashed.id]);
    assert.equal(res.json().squash, true);
  });

  test('a protected target: developers who may not merge get 401; allowed developers merge', async () => {
    await setMethod('merge');
    const target = `release-${++sequence}`;
    await commitOn(dir, target, { from: 'main' });
    const b = await branch();
    await t.post(`/api/v4/projects/${project.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: target, merge_access_level: ACCESS.MAINTAINER, push_access_level: ACCESS.MAINTAINER } });
    const mr = (await create({ title: 'Into release', source_branch: b.name, target_branch: target })).json();
    assert.equal(mr.user.can_merge, false);
    expectError(await merge(mr.iid), 401, { message: '401 Unauthorized' });
    const merged = await merge(mr.iid, {}, ROOT_TOKEN);
    expectStatus(merged, 200);
    assert.equal(merged.json().merged_by.id, 1);
  });

  test('issues named by "Closes #n" are closed when merging into the default branch', async () => {
    await setMethod('merge');
    const issue = (await t.post(`/api/v4/projects/${project.id}/issues`, { token: developer.token, body: { title: 'Bug' } })).json();
    const other = (await t.post(`/api/v4/projects/${project.id}/issues`, { token: developer.token, body: { title: 'Other' } })).json();
    const { iid, source } = await open('Fix it', { description: `This closes #${issue.iid} and fixes #${other.iid}.` });
    const res = await merge(iid);
    expectStatus(res, 200);
    for (const i of [issue, other]) assert.equal((await t.get(`/api/v4/projects/${project.id}/issues/${i.iid}`, { token: developer.token })).json().state, 'closed');
    const message = (await getCommit(dir, res.json().merge_commit_sha))!.message;
    assert.ok(message.includes(`Closes #${issue.iid} and #${other.iid}`), message);
    assert.ok(message.startsWith(`Merge branch '${source}' into 'main'`));
  });
});

describe('notes', () => {
  test('comments on a merge request: create, read, edit, delete; locked discussions', async () => {
    const { iid } = await open('Discussed');
    const url = `${base()}/${iid}/notes`;
    const made = await t.post(url, { token: reporter.token, body: { body: 'Looks good' } });
    expectStatus(made, 201);
    expectEntity(made.json(), NoteEntity);
    assert.equal(made.json().noteable_type, 'MergeRequest');
    assert.equal(made.json().noteable_iid, iid);
    expectEntity((await t.get(`${url}/${made.json().id}`, { token: developer.token })).json(), NoteEntity);
    expectError(await t.put(`${url}/${made.json().id}`, { token: developer.token, body: { body: 'no' } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.put(`${url}/${made.json().id}`, { token: reporter.token, body: { body: 'edited' } }), 200);
    assert.equal((await get(iid)).user_notes_count, 1);
    expectStatus(await t.del(`${url}/${made.json().id}`, { token: reporter.token }), 204);
    expectStatus(await t.put(`${base()}/${iid}`, { token: developer.token, body: { discussion_locked: true } }), 200);
    expectError(await t.post(url, { token: reporter.token, body: { body: 'locked out' } }), 403, { message: '403 Forbidden' });
    expectStatus(await t.post(url, { token: developer.token, body: { body: 'still here' } }), 201);
    expectError(await t.get(`${base()}/424242/notes`, { token: developer.token }), 404, { message: '404 Not found' });
  });
});

describe('the single entity', () => {
  test('head_pipeline and pipeline: the latest pipeline of the source head; render_html; diverged commits', async () => {
    const { iid, sha, source } = await open('With a pipeline', { description: '**bold**' });
    const at = new Date().toISOString();
    const pipeline = await t.deps.db
      .insertInto('ci_pipelines')
      .values({ project_id: project.id, iid: 1, ref: source, sha, before_sha: '0'.repeat(40), tag: false, protected: false, source: 'push', status: 'success', failure_reason: null, yaml_errors: null, user_id: developer.user.id, config_path: null, source_job_id: null, source_pipeline_id: null, source_project_id: null, trigger_id: null, schedule_id: null, duration: 3, committed_at: null, started_at: at, finished_at: at, created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow();
    await commitOn(dir, 'main');
    const res = await t.get(`${base()}/${iid}`, { token: developer.token, query: { render_html: 'true', include_diverged_commits_count: 'true' } });
    expectStatus(res, 200);
    const mr = res.json();
    expectEntity(mr, MergeRequestEntity);
    assert.equal(mr.head_pipeline.id, pipeline.id);
    assert.equal(mr.head_pipeline.status, 'success');
    assert.equal(mr.head_pipeline.user.id, developer.user.id);
    assert.equal(mr.pipeline.id, pipeline.id);
    assert.equal(mr.latest_build_started_at, at);
    assert.ok(mr.description_html.includes('<strong>bold</strong>'), mr.description_html);
    assert.equal(typeof mr.title_html, 'string');
    assert.equal(mr.diverged_commits_count, 1);
    // Anonymous readers of a public project see the pipeline too; without render_html, no html.
    const anonymous = (await t.get(`${base()}/${iid}`)).json();
    expectEntity(anonymous, MergeRequestEntity);
    assert.equal(anonymous.title_html, undefined);
    assert.equal(anonymous.user.can_merge, false);
  });

  test('retargeting to another branch, to a missing one, and target_project_id of another project', async () => {
    const { iid } = await open('Retarget');
    const other = `other-${++sequence}`;
    await commitOn(dir, other, { from: 'main' });
    const res = await t.put(`${base()}/${iid}`, { token: developer.token, body: { target_branch: other } });
    expectStatus(res, 200);
    assert.equal(res.json().target_branch, other);
    assert.equal(res.json().diff_refs.start_sha, await head(other));
    expectError(await t.put(`${base()}/${iid}`, { token: developer.token, body: { target_branch: 'nowhere' } }), 422, { message: ['Target branch "nowhere" does not exist'] });
    const b = await branch();
    expectError(await create({ title: 'fork', source_branch: b.name, target_branch: 'main', target_project_id: project.id + 1000 }), 422, { message: ['Source project is not a fork of the target project'] });
  });

  test('a group lists the merge requests of its projects the caller may read', async () => {
    const group = (await t.post('/api/v4/groups', { token: ROOT_TOKEN, body: { name: 'mr-group', path: 'mr-group', visibility: 'public' } })).json();
    const inGroup = (await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'grouped', namespace_id: group.id, initialize_with_readme: true, visibility: 'public' } })).json();
    const groupDir = projectRepositoryPath(t.deps.config.repositoryStorages, { id: inGroup.id, repository_storage: 'default' }) as string;
    await commitOn(groupDir, 'topic', { from: 'main' });
    const made = await t.post(`/api/v4/projects/${inGroup.id}/merge_requests`, { token: ROOT_TOKEN, body: { title: 'Grouped', source_branch: 'topic', target_branch: 'main' } });
    expectStatus(made, 201);
    const res = await t.get(`/api/v4/groups/${group.id}/merge_requests`);
    expectStatus(res, 200);
    expectEntities(res.json(), MergeRequestBasicEntity);
    assert.deepEqual(res.json().map((m: { id: number }) => m.id), [made.json().id]);
    assert.equal(res.json()[0].references.relative, `mr-group/grouped!1`);
    // With the merge requests feature private, outsiders see none of them.
    await updateProjectSettings(t.deps.db, inGroup.id, { features: { merge_requests_access_level: 'private' } });
    assert.deepEqual((await t.get(`/api/v4/groups/${group.id}/merge_requests`)).json(), []);
  });
});

test('a deleted author: the ghost user holds its merge requests; after a hard delete they have no author', async () => {
  for (const hard of [false, true]) {
    const leaving = await t.user();
    await addMember(t, project, leaving.user.id, ACCESS.DEVELOPER);
    const b = await branch();
    const mr = (await create({ title: 'Orphan', source_branch: b.name, target_branch: 'main', assignee_ids: [leaving.user.id] }, leaving.token)).json();
    expectStatus(await t.del(`/api/v4/users/${leaving.user.id}`, { token: ROOT_TOKEN, query: hard ? { hard_delete: 'true' } : {} }), 204);
    const kept = await get(mr.iid, ROOT_TOKEN);
    expectEntity(kept, MergeRequestEntity);
    assert.equal(kept.author?.username ?? null, hard ? null : 'ghost');
    assert.deepEqual(kept.assignees, []);
    assert.equal(kept.assignee, null);
  }
});
