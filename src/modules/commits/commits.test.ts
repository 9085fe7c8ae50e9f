// Repository commits through the API on real repositories: the list (ref_name, ranges, path,
// since/until, all, first_parent, order, with_stats, trailers, pagination), one commit with its
// stats, and commits made of file actions with every action and the platform's refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit, getCommit, readBlob, readTree } from '../../git/commits.ts';
import { resolveRef, updateRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { runGit } from '../../git/run.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { CommitDetailEntity, CommitWithStatsEntity } from './commits.schemas.ts';
import { AUTHOR } from '../../../test/fixtures/repository.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: ProjectRow;
let dir: string;

/** History on `main`, oldest first: README, a.txt (2020), b.txt + a.txt change (2021), then a merge of `side` (2022). */
const history: Record<string, string> = {};

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga', name: 'Olga Owner' });
  developer = await t.user({ username: 'dev', name: 'Dev Eloper' });
  reporter = await t.user({ username: 'rep' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'History', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
  history.readme = (await resolveRef(dir, 'refs/heads/main')) as string;
  const commit = async (branch: string, actions: Parameters<typeof createCommit>[1]['actions'], message: string, date: string) =>
    (await createCommit(dir, { branch, actions, message, author: AUTHOR, date: new Date(date) })).id;
  history.a = await commit('main', [{ action: 'create', path: 'a.txt', content: 'one\ntwo\n' }], 'Add a\n\nSigned-off-by: Ada <ada@example.com>\nReviewed-by: Bob <bob@example.com>\n', '2020-06-01T00:00:00Z');
  history.b = await commit('main', [{ action: 'create', path: 'dir/b.txt', content: 'b\n' }, { action: 'update', path: 'a.txt', content: 'one\nthree\nfour\n' }], 'Add b, change a', '2021-06-01T00:00:00Z');
  await updateRef(dir, 'refs/heads/side', history.a);
  history.side = await commit('side', [{ action: 'create', path: 'side.txt', content: 's\n' }], 'Side work', '2021-09-01T00:00:00Z');
  // A merge commit: main's tree with side.txt added, parents main and side.
  const merged = await createCommit(dir, { branch: 'merge-tmp', startRevision: history.b, actions: [{ action: 'create', path: 'side.txt', content: 's\n' }], message: 'x', author: AUTHOR });
  const tree = (await getCommit(dir, merged.id))?.tree as string;
  const env = { GIT_AUTHOR_NAME: AUTHOR.name, GIT_AUTHOR_EMAIL: AUTHOR.email, GIT_AUTHOR_DATE: '@1656633600 +0200', GIT_COMMITTER_NAME: AUTHOR.name, GIT_COMMITTER_EMAIL: AUTHOR.email, GIT_COMMITTER_DATE: '@1656633600 +0200' };
  history.merge = (await runGit(dir, ['commit-tree', tree, '-p', history.b, '-p', history.side], { env, input: "Merge branch 'side'" })).stdout.toString().trim();
  await updateRef(dir, 'refs/heads/main', history.merge);
  await runGit(dir, ['update-ref', '-d', 'refs/heads/merge-tmp']);
  await runGit(dir, ['tag', 'v1.0', history.b]);
});
after(() => t.close());

const url = (suffix = '', p = project) => `/api/v4/projects/${p.id}/repository/commits${suffix}`;
const ids = (res: { json(): unknown }) => (res.json() as { id: string }[]).map((c) => c.id);
const list = (query: Record<string, string> = {}, token?: string) => t.get(url(), { token, query });
const head = (branch = 'main') => resolveRef(dir, `refs/heads/${branch}`);

describe('GET /projects/:id/repository/commits', () => {
  test('the default branch newest first, each a strict commit entity, with offset pagination headers', async () => {
    const res = await list();
    expectStatus(res, 200);
    expectEntities(res.json(), CommitEntity);
    assert.deepEqual(ids(res), [history.merge, history.side, history.b, history.a, history.readme]);
    assert.equal(res.headers['x-total'], '5');
    assert.equal(res.headers['x-total-pages'], '1');
    assert.equal(res.headers['x-page'], '1');
    assert.equal(res.headers['x-per-page'], '20');

    const merge = res.json()[0];
    assert.deepEqual(merge, {
      id: history.merge,
      short_id: history.merge.slice(0, 11),
      created_at: '2022-07-01T02:00:00.000+02:00',
      parent_ids: [history.b, history.side],
      title: "Merge branch 'side'",
      message: "Merge branch 'side'",
      author_name: AUTHOR.name,
      author_email: AUTHOR.email,
      authored_date: '2022-07-01T02:00:00.000+02:00',
      committer_name: AUTHOR.name,
      committer_email: AUTHOR.email,
      committed_date: '2022-07-01T02:00:00.000+02:00',
      trailers: {},
      web_url: `${BASE_URL}/${project.full_path}/-/commit/${history.merge}`,
    });

    const page2 = await list({ per_page: '2', page: '2' });
    assert.deepEqual(ids(page2), [history.b, history.a]);
    assert.equal(page2.headers['x-next-page'], '3');
    assert.equal(page2.headers['x-prev-page'], '1');
    assert.equal(page2.headers['x-total-pages'], '3');
    assert.match(page2.headers.link as string, /rel="next"/);
    assert.deepEqual(ids(await list({ per_page: '2', page: '9' })), []);
  });

  test('ref_name: a branch, a tag, a sha, a range; a name that is no commit lists nothing', async () => {
    assert.deepEqual(ids(await list({ ref_name: 'side' })), [history.side, history.a, history.readme]);
    assert.deepEqual(ids(await list({ ref_name: 'v1.0' })), [history.b, history.a, history.readme]);
    assert.deepEqual(ids(await list({ ref_name: history.a })), [history.a, history.readme]);
    assert.deepEqual(ids(await list({ ref_name: `${history.a}..main` })), [history.merge, history.side, history.b]);
    assert.deepEqual(ids(await list({ ref_name: 'side...v1.0' })), [history.side, history.b]);
    // Unicode spaces are part of a name for git (its whitespace is ASCII's): names of nothing, not errors.
    for (const ref of ['nope', '--all', 'a b', 'nope..main', 'main\uFEFF', 'a\u00A0b', 'x\u2028', 'v\u3000']) {
      const res = await list({ ref_name: ref });
      expectStatus(res, 200);
      assert.deepEqual(res.json(), []);
      assert.equal(res.headers['x-total'], '0');
    }
  });

  test('path, since and until, all, first_parent, order=topo, with_stats, trailers', async () => {
    assert.deepEqual(ids(await list({ path: 'a.txt' })), [history.b, history.a]);
    assert.deepEqual(ids(await list({ path: 'dir' })), [history.b]);
    assert.deepEqual(ids(await list({ path: 'nothing-here' })), []);
    expectError(await list({ path: '../etc/passwd' }), 400, { error: 'path should be a valid file path' });
    assert.deepEqual(ids(await list({ since: '2021-01-01T00:00:00Z', until: '2021-12-31T00:00:00Z' })), [history.side, history.b]);
    expectError(await list({ since: 'yesterday-ish' }), 400, { error: 'since is invalid' });
    assert.deepEqual(ids(await list({ first_parent: 'true' })), [history.merge, history.b, history.a, history.readme]);
    assert.deepEqual(new Set(ids(await list({ order: 'topo' }))), new Set([history.merge, history.side, history.b, history.a, history.readme]));
    expectError(await list({ order: 'random' }), 400, { error: 'order does not have a valid value' });

    await updateRef(dir, 'refs/heads/orphan-ish', history.readme);
    const extra = (await createCommit(dir, { branch: 'orphan-ish', actions: [{ action: 'create', path: 'o.txt', content: 'o' }], message: 'elsewhere', author: AUTHOR })).id;
    assert.equal(ids(await list({ all: 'true' })).includes(extra), true);
    assert.equal(ids(await list()).includes(extra), false);

    const stats = await list({ with_stats: 'true', ref_name: history.b });
    expectEntities(stats.json(), CommitWithStatsEntity);
    assert.deepEqual(
      stats.json().map((c: { stats: unknown }) => c.stats),
      [
        { additions: 3, deletions: 1, total: 4 },
        { additions: 2, deletions: 0, total: 2 },
        { additions: 2, deletions: 0, total: 2 },
      ],
    );
    const trailers = await list({ trailers: 'true', ref_name: history.a });
    assert.deepEqual(trailers.json()[0].trailers, { 'Signed-off-by': 'Ada <ada@example.com>', 'Reviewed-by': 'Bob <bob@example.com>' });
    assert.deepEqual((await list({ ref_name: history.a })).json()[0].trailers, {});
  });

  test('keyset pagination is not offered; an empty repository lists nothing', async () => {
    expectError(await list({ pagination: 'keyset' }), 405, { error: 'Keyset pagination is not yet available for this type of request' });
    const empty = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Nothing' } });
    const res = await t.get(`/api/v4/projects/${empty.json().id}/repository/commits`, { token: owner.token });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), []);
  });
});

describe('GET /projects/:id/repository/commits/:sha', () => {
  test('the detail by sha, short sha, branch or tag: stats, trailers, status and pipeline', async () => {
    for (const ref of [history.a, history.a.slice(0, 7), 'main~2']) {
      const res = await t.get(url(`/${encodeURIComponent(ref)}`));
      expectStatus(res, 200);
      expectEntity(res.json(), CommitDetailEntity);
      assert.equal(res.json().id, history.a);
      assert.deepEqual(res.json().stats, { additions: 2, deletions: 0, total: 2 });
      assert.deepEqual(res.json().trailers, { 'Signed-off-by': 'Ada <ada@example.com>', 'Reviewed-by': 'Bob <bob@example.com>' });
      assert.equal(res.json().title, 'Add a');
      assert.equal(res.json().status, null);
      assert.equal(res.json().last_pipeline, null);
      assert.equal(res.json().project_id, project.id);
    }
    assert.equal((await t.get(url('/v1.0'))).json().id, history.b);
    assert.equal((await t.get(url('/side'))).json().id, history.side);
    const merge = await t.get(url('/main'));
    // A merge's stats are against its first parent.
    assert.deepEqual(merge.json().stats, { additions: 1, deletions: 0, total: 1 });
    const noStats = await t.get(url(`/${history.a}`), { query: { stats: 'false' } });
    expectEntity(noStats.json(), CommitDetailEntity);
    assert.equal('stats' in noStats.json(), false);
  });

  test('404 "404 Commit Not Found" for what names no commit', async () => {
    for (const ref of ['nope', '0'.repeat(40), '--all', 'main:a.txt', `${history.a}..main`]) {
      expectError(await t.get(url(`/${encodeURIComponent(ref)}`)), 404, { message: '404 Commit Not Found' });
    }
  });
});

describe('POST /projects/:id/repository/commits', () => {
  const post = (body: Record<string, unknown>, token = developer.token) => t.post(url(), { token, body: { branch: 'work', commit_message: 'Change', ...body } });
  const content = async (path: string, ref = 'work') => (await readBlob(dir, ref, path))?.content.toString() ?? null;

  before(async () => {
    await updateRef(dir, 'refs/heads/work', history.merge);
  });

  test('every action in one commit: create, update, move, delete, chmod; the detail answers with stats', async () => {
    const before = (await head('work')) as string;
    const res = await post({
      commit_message: 'Many things\n\nwith a body',
      author_name: 'Ann Author',
      author_email: 'ann@example.com',
      actions: [
        { action: 'create', file_path: 'new/one.txt', content: 'one\n' },
        { action: 'create', file_path: 'new/bin.dat', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
        { action: 'update', file_path: 'a.txt', content: 'rewritten\n' },
        { action: 'move', file_path: 'moved/b.txt', previous_path: 'dir/b.txt' },
        { action: 'delete', file_path: 'side.txt' },
        { action: 'chmod', file_path: 'README.md', execute_filemode: true },
      ],
    });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, CommitDetailEntity);
    const commit = await getCommit(dir, 'work');
    assert.equal(body.id, commit?.id);
    assert.deepEqual(body.parent_ids, [before]);
    assert.equal(body.title, 'Many things');
    assert.equal(body.message, 'Many things\n\nwith a body');
    assert.deepEqual([body.author_name, body.author_email, body.committer_name, body.committer_email], ['Ann Author', 'ann@example.com', 'Dev Eloper', 'dev@example.com']);
    assert.deepEqual(body.stats, { additions: 3, deletions: 5, total: 8 });
    assert.equal(await content('new/one.txt'), 'one\n');
    assert.deepEqual((await readBlob(dir, 'work', 'new/bin.dat'))?.content, Buffer.from([0, 1, 2, 255]));
    assert.equal(await content('a.txt'), 'rewritten\n');
    assert.equal(await content('moved/b.txt'), 'b\n');
    assert.equal(await content('dir/b.txt'), null);
    assert.equal(await content('side.txt'), null);
    assert.equal((await readBlob(dir, 'work', 'README.md'))?.mode, '100755');

    const moved = await post({ actions: [{ action: 'move', file_path: 'moved/c.txt', previous_path: 'moved/b.txt', content: 'new content' }], stats: false });
    expectStatus(moved, 201);
    assert.equal('stats' in moved.json(), false);
    assert.equal(await content('moved/c.txt'), 'new content');
  });

  test('refusals of actions that do not fit the tree, and stale last_commit_id', async () => {
    const before = await head('work');
    const cases: [Record<string, unknown>[], string][] = [
      [[{ action: 'create', file_path: 'a.txt', content: 'x' }], 'A file with this name already exists'],
      [[{ action: 'update', file_path: 'missing.txt', content: 'x' }], "A file with this name doesn't exist"],
      [[{ action: 'delete', file_path: 'missing.txt' }], "A file with this name doesn't exist"],
      [[{ action: 'move', file_path: 'x.txt', previous_path: 'missing.txt' }], "A file with this name doesn't exist"],
      [[{ action: 'move', file_path: 'README.md', previous_path: 'a.txt' }], 'A file with this name already exists'],
      [[{ action: 'chmod', file_path: 'missing.txt', execute_filemode: true }], "A file with this name doesn't exist"],
      [[{ action: 'create', file_path: 'new', content: 'x' }], 'A directory with this name already exists'],
      [[{ action: 'create', file_path: 'a.txt/inside', content: 'x' }], 'A file with this name already exists'],
      [[{ action: 'update', file_path: 'a.txt', content: 'x', last_commit_id: history.readme }], 'The file has changed since you started editing it: a.txt'],
      [[{ action: 'move', file_path: 'z.txt', previous_path: 'a.txt', last_commit_id: history.readme }], 'The file has changed since you started editing it: a.txt'],
      [[{ action: 'create', file_path: 'fine.txt', content: 'x' }, { action: 'delete', file_path: 'missing.txt' }], "A file with this name doesn't exist"],
    ];
    for (const [actions, message] of cases) expectError(await post({ actions }), 400, { message });
    assert.equal(await head('work'), before);
    assert.equal(await content('fine.txt'), null);
    const current = (await t.get(url(), { query: { ref_name: 'work', path: 'a.txt', per_page: '1' } })).json()[0].id;
    expectStatus(await post({ actions: [{ action: 'update', file_path: 'a.txt', content: 'fresh', last_commit_id: current }] }), 201);
  });

  test('action paths: climbing, absolute, the repository directory and blanks are refused before git sees them', async () => {
    const before = await head('work');
    const cases: [string, string][] = [
      ['../escape.txt', 'Path cannot include directory traversal'],
      ['a/../../escape.txt', 'Path cannot include directory traversal'],
      ['/etc/passwd', "invalid path: '/etc/passwd'"],
      ['.git/config', "invalid path: '.git/config'"],
      ['sub/.git/hooks/pre-receive', "invalid path: 'sub/.git/hooks/pre-receive'"],
      ['', 'You must provide a file path'],
    ];
    for (const [path, message] of cases) {
      expectError(await post({ actions: [{ action: 'create', file_path: path, content: 'x' }] }), 400, { message });
      expectError(await post({ actions: [{ action: 'move', file_path: 'ok.txt', previous_path: path }] }), 400, { message });
    }
    assert.equal(await head('work'), before);
    assert.equal((await readTree(dir, 'work', '', { recursive: true }))?.some((e) => e.path.includes('.git')), false);
  });

  test('parameter errors: missing fields, the fields an action needs, unknown actions and encodings', async () => {
    expectError(await t.post(url(), { token: developer.token, body: { commit_message: 'm', actions: [] } }), 400, { error: 'branch is missing' });
    expectError(await t.post(url(), { token: developer.token, body: { branch: 'work', actions: [] } }), 400, { error: 'commit_message is missing' });
    expectError(await t.post(url(), { token: developer.token, body: { branch: 'work', commit_message: 'm' } }), 400, { error: 'actions is missing' });
    expectError(await post({ actions: [{ action: 'explode', file_path: 'a' }] }), 400, { error: 'actions[][action] does not have a valid value' });
    expectError(await post({ actions: [{ action: 'create' }] }), 400, { error: 'actions[][file_path] is missing' });
    expectError(await post({ actions: [{ action: 'create', file_path: 'a', content: 'x', encoding: 'rot13' }] }), 400, { error: 'actions[][encoding] does not have a valid value' });
    expectError(await post({ actions: [{ action: 'move', file_path: 'a' }] }), 400, { error: 'actions[][previous_path] is missing' });
    expectError(await post({ actions: [{ action: 'update', file_path: 'a' }] }), 400, { error: 'actions[][content] is missing' });
    expectError(await post({ actions: [{ action: 'chmod', file_path: 'a' }] }), 400, { error: 'actions[][execute_filemode] is missing' });
    expectError(await post({ actions: [], start_branch: 'main', start_sha: history.a }), 400, { error: 'start_branch, start_sha are mutually exclusive' });
  });

  test('more actions than QUARRY_COMMIT_MAX_ACTIONS (10,000 by default) are refused with 400 before anything is written', async () => {
    const max = t.deps.config.commitMaxActions;
    assert.equal(max, 10_000);
    const before = await head('work');
    const actions = Array.from({ length: max + 1 }, (_, i) => ({ action: 'create', file_path: `many/${i}.txt`, content: 'x' }));
    expectError(await post({ actions }), 400, { error: 'actions is expected to have length less than or equal to 10000' });
    assert.equal(await head('work'), before);
  });

  test('new branches from start_branch or start_sha; force replaces a branch; the refusals of each', async () => {
    const fromBranch = await post({ branch: 'from-main', start_branch: 'main', actions: [{ action: 'create', file_path: 'f1.txt', content: '1' }] });
    expectStatus(fromBranch, 201);
    assert.deepEqual(fromBranch.json().parent_ids, [history.merge]);
    const fromSha = await post({ branch: 'from-sha', start_sha: history.a, actions: [{ action: 'create', file_path: 'f2.txt', content: '2' }] });
    expectStatus(fromSha, 201);
    assert.deepEqual(fromSha.json().parent_ids, [history.a]);

    expectError(await post({ branch: 'x1', start_sha: 'abc', actions: [] }), 400, { message: "Invalid start_sha 'abc'" });
    expectError(await post({ branch: 'x1', start_sha: 'f'.repeat(40), actions: [] }), 400, { message: `Cannot find start_sha '${'f'.repeat(40)}'` });
    expectError(await post({ branch: 'x1', start_branch: 'nope', actions: [] }), 400, { message: 'You can only create or edit files when you are on a branch' });
    expectError(await post({ branch: 'x1', actions: [] }), 400, { message: 'You can only create or edit files when you are on a branch' });
    expectError(await post({ branch: 'from-main', start_branch: 'side', actions: [] }), 400, {
      message: "A branch called 'from-main' already exists. Switch to that branch in order to make changes",
    });
    expectError(await post({ branch: 'bad..name', start_branch: 'main', actions: [] }), 400, { message: "Something went wrong when we tried to create 'bad..name' for you: Branch name is invalid" });
    assert.equal(await head('x1'), null);

    const forced = await post({ branch: 'from-main', start_branch: 'side', force: true, actions: [{ action: 'create', file_path: 'f3.txt', content: '3' }] });
    expectStatus(forced, 201);
    assert.deepEqual(forced.json().parent_ids, [history.side]);
    assert.equal(await head('from-main'), forced.json().id);
    assert.equal(await content('f1.txt', 'from-main'), null);
  });

  test('who may commit: 403 with the platform reason for readers and on protected branches; start_project must be this project', async () => {
    const refusal = { message: '403 Forbidden - You are not allowed to push into this branch' };
    const actions = [{ action: 'create', file_path: 'who.txt', content: 'x' }];
    expectError(await post({ actions }, reporter.token), 403, refusal);
    expectError(await t.post(url(), { body: { branch: 'work', commit_message: 'm', actions } }), 403, refusal);
    expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'guarded', push_access_level: ACCESS.MAINTAINER } }), 201);
    expectError(await post({ branch: 'guarded', start_branch: 'main', actions }), 403, refusal);
    expectStatus(await post({ branch: 'guarded', start_branch: 'main', actions }, owner.token), 201);

    const other = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Elsewhere', initialize_with_readme: true, visibility: 'public' } });
    expectError(await post({ actions, start_project: String(other.json().id) }), 403, { message: `403 Forbidden - Project is not included in the fork network for ${other.json().name_with_namespace}` });
    const hidden = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'Hidden', initialize_with_readme: true } });
    expectError(await post({ actions, start_project: String(hidden.json().id) }), 404, { message: '404 Project Not Found' });
    expectStatus(await post({ actions: [{ action: 'create', file_path: 'self.txt', content: 'x' }], start_project: project.full_path }), 201);
  });

  test('the read-only flag refuses; a huge body is refused with 413', async () => {
    const before = await head('work');
    await t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', project.id).execute();
    try {
      expectError(await post({ actions: [{ action: 'create', file_path: 'ro.txt', content: 'x' }] }), 400, { message: REPOSITORY_READ_ONLY_MESSAGE });
    } finally {
      await t.deps.db.updateTable('projects').set({ repository_read_only: false }).where('id', '=', project.id).execute();
    }
    expectError(await post({ actions: [{ action: 'create', file_path: 'huge.txt', content: 'x'.repeat(11 * 1024 * 1024) }] }), 413, { message: '413 Request Entity Too Large' });
    assert.equal(await head('work'), before);
  });

  test('form-encoded actions, as some clients send them', async () => {
    const form = 'branch=work&commit_message=Form&actions[][action]=create&actions[][file_path]=form.txt&actions[][content]=from%20a%20form';
    const res = await t.post(url(), { token: developer.token, form });
    expectStatus(res, 201);
    assert.equal(await content('form.txt'), 'from a form');
  });

  test('form-encoded actions: a repeated key starts the next action, as Rack reads arrays of hashes', async () => {
    const form = [
      'branch=work&commit_message=Two+files',
      'actions[][action]=create&actions[][file_path]=form-a.txt&actions[][content]=first',
      'actions%5B%5D%5Baction%5D=create&actions%5B%5D%5Bfile_path%5D=form-b.txt&actions%5B%5D%5Bcontent%5D=second',
    ].join('&');
    const res = await t.post(url(), { token: developer.token, form });
    expectStatus(res, 201);
    assert.deepEqual(res.json().stats, { additions: 2, deletions: 0, total: 2 });
    assert.equal(await content('form-a.txt'), 'first');
    assert.equal(await content('form-b.txt'), 'second');
  });
});

describe('QUARRY_COMMIT_MAX_ACTIONS', () => {
  let small: TestApp;
  let target: string;
  before(async () => {
    small = await createTestApp({ QUARRY_COMMIT_MAX_ACTIONS: '3' });
    const res = await small.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'bounded', initialize_with_readme: true } });
    expectStatus(res, 201);
    target = `/api/v4/projects/${res.json().id}/repository/commits`;
  });
  after(() => small.close());
  const creates = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ action: 'create', file_path: `${prefix}/${i}.txt`, content: 'x' }));

  test('as many actions as the bound are committed; one more is refused, in JSON and in a form alike', async () => {
    expectStatus(await small.post(target, { token: ROOT_TOKEN, body: { branch: 'main', commit_message: 'm', actions: creates(3, 'ok') } }), 201);
    const message = { error: 'actions is expected to have length less than or equal to 3' };
    expectError(await small.post(target, { token: ROOT_TOKEN, body: { branch: 'main', commit_message: 'm', actions: creates(4, 'no') } }), 400, message);
    const form = ['branch=main', 'commit_message=m', ...creates(4, 'form').map((a) => `actions[][action]=create&actions[][file_path]=${a.file_path}`)].join('&');
    expectError(await small.post(target, { token: ROOT_TOKEN, form }), 400, message);
  });

  test('the bound comes after the project is found: an unknown project is still 404', async () => {
    expectError(await small.post('/api/v4/projects/999999/repository/commits', { token: ROOT_TOKEN, body: { branch: 'main', commit_message: 'm', actions: creates(4, 'x') } }), 404, {
      message: '404 Project Not Found',
    });
  });
});
