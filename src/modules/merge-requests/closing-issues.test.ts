// The issues a merge request closes: kept from its title, description and commits on create, edit and push
// (merge_requests_closing_issues), counted on the issue entity as merge_requests_count for those
// who may see the merge requests, listed by GET …/closes_issues, and gone with the merge request.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addMember } from '../../../test/factories.ts';
import { commitOn } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { IssueEntity } from '../issues/issues.schemas.ts';

let t: TestApp;
let developer: TestUser;
let stranger: TestUser;
let project: ProjectRow;
let dir: string;

before(async () => {
  t = await createTestApp();
  const owner = await t.user({ username: 'closing-owner' });
  developer = await t.user({ username: 'closing-dev' });
  stranger = await t.user({ username: 'closing-stranger' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Closing', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
});
after(() => t.close());

const api = (path: string) => `/api/v4/projects/${project.id}${path}`;
let branches = 0;
async function issue(title: string): Promise<number> {
  const res = await t.post(api('/issues'), { token: developer.token, body: { title } });
  expectStatus(res, 201);
  return res.json().iid;
}
async function mergeRequest(body: Record<string, unknown>): Promise<number> {
  const source = `closing-${++branches}`;
  await commitOn(dir, source, { from: 'main' });
  const res = await t.post(api('/merge_requests'), { token: developer.token, body: { source_branch: source, target_branch: 'main', title: 'A change', ...body } });
  expectStatus(res, 201);
  return res.json().iid;
}
/** The issue's merge_requests_count as `token` (null: anonymously) sees it. */
async function count(iid: number, token: string | null = developer.token): Promise<number> {
  const res = await t.get(api(`/issues/${iid}`), { token: token ?? undefined });
  expectStatus(res, 200);
  expectEntity(res.json(), IssueEntity);
  return res.json().merge_requests_count;
}

test('an MR whose description closes an issue counts on it until the description stops saying so', async () => {
  const closed = await issue('Broken');
  const named = await issue('Only mentioned');
  const mr = await mergeRequest({ description: `Closes #${closed}. See #${named}.` });
  assert.equal(await count(closed), 1);
  assert.equal(await count(named), 0);

  const list = await t.get(api('/issues?order_by=created_at&sort=asc'), { token: developer.token });
  expectStatus(list, 200);
  expectEntities(list.json(), IssueEntity);
  const counts = Object.fromEntries(list.json().map((i: { iid: number; merge_requests_count: number }) => [i.iid, i.merge_requests_count]));
  assert.deepEqual([counts[closed], counts[named]], [1, 0]);

  const closes = await t.get(api(`/merge_requests/${mr}/closes_issues`), { token: developer.token });
  expectStatus(closes, 200);
  expectEntities(closes.json(), IssueEntity);
  assert.deepEqual(closes.json().map((i: { iid: number }) => i.iid), [closed]);
  assert.equal(closes.headers['x-total'], '1');

  expectStatus(await t.put(api(`/merge_requests/${mr}`), { token: developer.token, body: { description: 'Nothing to close' } }), 200);
  assert.equal(await count(closed), 0);
  const none = await t.get(api(`/merge_requests/${mr}/closes_issues`), { token: developer.token });
  expectStatus(none, 200);
  assert.deepEqual(none.json(), []);

  expectStatus(await t.put(api(`/merge_requests/${mr}`), { token: developer.token, body: { title: `Fixes #${named}` } }), 200);
  assert.equal(await count(named), 1, 'the title closes too');
});

test('two MRs count twice; deleting one and closing the other keep the counts the platform keeps', async () => {
  const iid = await issue('Shared');
  const first = await mergeRequest({ description: `fixes #${iid}` });
  const second = await mergeRequest({ description: `Resolves issue #${iid}` });
  assert.equal(await count(iid), 2);
  // A closed merge request keeps its rows (cache_merge_request_closes_issues! skips it).
  expectStatus(await t.put(api(`/merge_requests/${second}`), { token: developer.token, body: { state_event: 'close' } }), 200);
  assert.equal(await count(iid), 2);
  expectStatus(await t.del(api(`/merge_requests/${first}`), { token: ROOT_TOKEN }), 204);
  assert.equal(await count(iid), 1);
});

test('only merge requests into the default branch close issues', async () => {
  const iid = await issue('Elsewhere');
  await commitOn(dir, 'stable', { from: 'main' });
  await commitOn(dir, 'closing-other', { from: 'main' });
  const res = await t.post(api('/merge_requests'), { token: developer.token, body: { source_branch: 'closing-other', target_branch: 'stable', title: 'x', description: `Closes #${iid}` } });
  expectStatus(res, 201);
  assert.equal(await count(iid), 0);
});

test('the count and the list follow who may see the merge requests', async () => {
  const iid = await issue('Private MRs');
  const mr = await mergeRequest({ description: `Closes #${iid}` });
  assert.equal(await count(iid, null), 1);
  expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { merge_requests_access_level: 'private' } }), 200);
  assert.equal(await count(iid, null), 0);
  assert.equal(await count(iid, stranger.token), 0);
  assert.equal(await count(iid, developer.token), 1);
  expectError(await t.get(api(`/merge_requests/${mr}/closes_issues`), { token: stranger.token }), 404, { message: '404 Not found' });
  expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { merge_requests_access_level: 'enabled' } }), 200);
});

test('commit messages close issues too: read again after a push to the source, and closed by the merge', async () => {
  const iid = await issue('Fixed by a commit');
  const mr = await mergeRequest({ description: 'Nothing said here' });
  assert.equal(await count(iid), 0);
  const pushed = await t.post(api('/repository/commits'), {
    token: developer.token,
    body: { branch: `closing-${branches}`, commit_message: `Repair\n\nFixes #${iid}`, actions: [{ action: 'create', file_path: `fix-${iid}.txt`, content: 'fixed' }] },
  });
  expectStatus(pushed, 201);
  await t.runJobs();
  assert.equal(await count(iid), 1);
  const merged = await t.put(api(`/merge_requests/${mr}/merge`), { token: ROOT_TOKEN });
  expectStatus(merged, 200);
  const issueNow = (await t.get(api(`/issues/${iid}`), { token: developer.token })).json();
  assert.equal(issueNow.state, 'closed');
  const commit = (await t.get(api(`/repository/commits/${merged.json().merge_commit_sha}`), { token: developer.token })).json();
  assert.ok(commit.message.includes(`Closes #${iid}`), commit.message);
});
