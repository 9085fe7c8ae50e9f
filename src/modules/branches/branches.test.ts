// Repository branches through the API on real repositories: the entity and its computed fields,
// search and pagination, create and delete with the platform's refusals, protected branches, the
// read-only flag, odd names, and two requests racing for one branch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, createProject, unprotectDefaultBranch } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { getCommit } from '../../git/commits.ts';
import { resolveRef, updateRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { BranchEntity } from './branches.schemas.ts';
import { AUTHOR, commitOn, giveRepository } from '../../../test/fixtures/repository.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: ProjectRow;
let dir: string;
/** main's first commit (the README) and its head. */
let initial: string;
let head: string;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga', name: 'Olga Owner' });
  developer = await t.user({ username: 'dev' });
  reporter = await t.user({ username: 'rep' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Repo', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  await unprotectDefaultBranch(t, res.json());
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
  initial = (await resolveRef(dir, 'refs/heads/main')) as string;
  head = await commitOn(dir, 'main', { message: 'Second\n\nSigned-off-by: Ada <ada@example.com>\n' });
});
after(() => t.close());

const url = (suffix = '', p = project) => `/api/v4/projects/${p.id}/repository/branches${suffix}`;
const names = (res: { json(): unknown }) => (res.json() as { name: string }[]).map((b) => b.name);
const create = (body: Record<string, unknown>, token = developer.token) => t.post(url(), { token, body });
let sequence = 0;
const fresh = (prefix = 'b') => `${prefix}-${++sequence}`;

/** Sets a branch to a commit directly in git. */
const setBranch = (name: string, commit: string) => updateRef(dir, `refs/heads/${name}`, commit);

async function protect(name: string, levels: Record<string, number> = {}): Promise<void> {
  expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_branches`, { token: ROOT_TOKEN, body: { name, ...levels } }), 201);
}
const unprotect = async (name: string) => expectStatus(await t.del(`/api/v4/projects/${project.id}/protected_branches/${encodeURIComponent(name)}`, { token: ROOT_TOKEN }), 204);
const setReadOnly = (value: boolean) => t.deps.db.updateTable('projects').set({ repository_read_only: value }).where('id', '=', project.id).execute();

describe('GET /projects/:id/repository/branches/:branch', () => {
  test('the whole entity: the head commit, its trailers and URLs, and the computed flags', async () => {
    const res = await t.get(url('/main'), { token: developer.token });
    expectStatus(res, 200);
    expectEntity(res.json(), BranchEntity);
    const commit = await getCommit(dir, head);
    assert.ok(commit);
    const webUrl = `${BASE_URL}/olga/repo`;
    assert.deepEqual(res.json(), {
      name: 'main',
      commit: {
        id: head,
        short_id: head.slice(0, 11),
        created_at: commit.committer.date,
        parent_ids: [initial],
        title: 'Second',
        message: 'Second\n\nSigned-off-by: Ada <ada@example.com>\n',
        author_name: AUTHOR.name,
        author_email: AUTHOR.email,
        authored_date: commit.author.date,
        committer_name: AUTHOR.name,
        committer_email: AUTHOR.email,
        committed_date: commit.committer.date,
        trailers: { 'Signed-off-by': 'Ada <ada@example.com>' },
        web_url: `${webUrl}/-/commit/${head}`,
      },
      merged: false,
      protected: false,
      developers_can_push: false,
      developers_can_merge: false,
      can_push: true,
      default: true,
      web_url: `${webUrl}/-/tree/main`,
    });
  });

  test('merged: behind the default branch, not level with it; a branch name with a slash, URL-encoded', async () => {
    await setBranch('feature/behind', initial);
    await setBranch('level', head);
    const behind = await t.get(url('/feature%2Fbehind'), { token: developer.token });
    expectStatus(behind, 200);
    assert.equal(behind.json().merged, true);
    assert.equal(behind.json().default, false);
    assert.equal(behind.json().web_url, `${BASE_URL}/olga/repo/-/tree/feature/behind`);
    assert.equal((await t.get(url('/level'), { token: developer.token })).json().merged, false);
  });

  test('who may not push sees can_push false: a reporter, an anonymous caller on a public project', async () => {
    assert.equal((await t.get(url('/main'), { token: reporter.token })).json().can_push, false);
    const anonymous = await t.get(url('/main'));
    expectStatus(anonymous, 200);
    assert.equal(anonymous.json().can_push, false);
  });

  test('an absent branch is a 404; a name git refuses is a 400 before git runs', async () => {
    expectError(await t.get(url('/nope'), { token: developer.token }), 404, { message: '404 Branch Not Found' });
    for (const name of ['a..b', '-x', '--upload-pack=x', 'branch*', '..%2Fx', 'refs%2Fheads%2Fmain', 'HEAD', 'x.lock', 'a%20b', 'x~1', 'a%5Cb']) {
      expectError(await t.get(url(`/${name}`), { token: developer.token }), 400, { message: 'The branch refname is invalid' });
    }
  });

  test('HEAD answers 204 for a branch and 404 without one, never with a body', async () => {
    const found = await t.request('HEAD', url('/main'), { token: developer.token });
    assert.equal(found.statusCode, 204);
    assert.equal(found.body, '');
    const missing = await t.request('HEAD', url('/nope'), { token: developer.token });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.body, '');
  });
});

describe('GET /projects/:id/repository/branches', () => {
  let listed: ProjectRow;
  let listedDir: string;

  before(async () => {
    listed = await createProject(t, { visibility: 'public', members: [[developer.user.id, ACCESS.DEVELOPER]] });
    const repo = await giveRepository(t, listed);
    listedDir = repo.dir;
    const ahead = await commitOn(listedDir, 'feature/ahead', { from: 'main' });
    for (const [name, commit] of [['Zeta', repo.head], ['alpha', repo.head], ['release/1.0', ahead], ['ALPHA-2', ahead], ['x-alpha', ahead], ['ñandú', repo.head]] as const) {
      await updateRef(listedDir, `refs/heads/${name}`, commit);
    }
    await commitOn(listedDir, 'main');
    listed = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', listed.id).executeTakeFirstOrThrow();
  });

  const list = (query: Record<string, string> = {}) => t.get(url('', listed), { token: developer.token, query });

  test('every branch, by name in byte order, each a whole entity', async () => {
    const res = await list({ per_page: '100' });
    expectStatus(res, 200);
    expectEntities(res.json(), BranchEntity);
    assert.deepEqual(names(res), ['ALPHA-2', 'Zeta', 'alpha', 'feature/ahead', 'main', 'release/1.0', 'x-alpha', 'ñandú']);
    const byName = new Map((res.json() as { name: string; merged: boolean; default: boolean }[]).map((b) => [b.name, b]));
    // Behind main: merged; ahead of it: not; main itself: not.
    assert.deepEqual(
      ['Zeta', 'ALPHA-2', 'main'].map((n) => byName.get(n)?.merged),
      [true, false, false],
    );
    assert.equal(byName.get('main')?.default, true);
    assert.equal(res.headers['x-total'], '8');
  });

  test('search: contains, ^prefix, suffix$, case-insensitive, exact matches first, one operator only', async () => {
    assert.deepEqual(names(await list({ search: 'alpha' })), ['alpha', 'ALPHA-2', 'x-alpha']);
    assert.deepEqual(names(await list({ search: 'ALPHA' })), ['alpha', 'ALPHA-2', 'x-alpha']);
    assert.deepEqual(names(await list({ search: '^alp' })), ['ALPHA-2', 'alpha']);
    assert.deepEqual(names(await list({ search: 'alpha$' })), ['alpha', 'x-alpha']);
    assert.deepEqual(names(await list({ search: '^alpha$' })), []);
    assert.deepEqual(names(await list({ search: 'release/' })), ['release/1.0']);
    assert.deepEqual(names(await list({ search: 'ÑANDÚ' })), ['ñandú']);
    assert.deepEqual(names(await list({ search: 'none' })), []);
    assert.equal(names(await list({ search: '' })).length, 8);
  });

  test('offset pages with the pagination headers; keyset requests get offset pages too', async () => {
    const res = await list({ per_page: '3', page: '2' });
    assert.deepEqual(names(res), ['feature/ahead', 'main', 'release/1.0']);
    assert.deepEqual(
      ['x-page', 'x-per-page', 'x-total', 'x-total-pages', 'x-prev-page', 'x-next-page'].map((h) => res.headers[h]),
      ['2', '3', '8', '3', '1', '3'],
    );
    assert.match(String(res.headers.link), /page=1&per_page=3>; rel="prev".*page=3&per_page=3>; rel="next".*rel="first".*page=3&per_page=3>; rel="last"/);
    const searched = await list({ search: 'alpha', per_page: '2', page: '2' });
    assert.deepEqual(names(searched), ['x-alpha']);
    assert.equal(searched.headers['x-total'], '3');
    assert.deepEqual(names(await list({ per_page: '3', page: '9' })), []);
    assert.deepEqual(names(await list({ pagination: 'keyset', per_page: '2' })), ['ALPHA-2', 'Zeta']);
  });

  test('protected, developers_can_push / _merge and can_push from the protection rules', async () => {
    expectStatus(await t.post(`/api/v4/projects/${listed.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'release/*', push_access_level: 30 } }), 201);
    expectStatus(await t.post(`/api/v4/projects/${listed.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'main' } }), 201);
    const byName = new Map(((await list()).json() as { name: string }[]).map((b) => [b.name, b]));
    assert.deepEqual(byName.get('release/1.0'), { ...byName.get('release/1.0'), protected: true, developers_can_push: true, developers_can_merge: false, can_push: true });
    assert.deepEqual(byName.get('main'), { ...byName.get('main'), protected: true, developers_can_push: false, developers_can_merge: false, can_push: false });
    assert.deepEqual(byName.get('alpha'), { ...byName.get('alpha'), protected: false, can_push: true });
    const asRoot = new Map(((await t.get(url('', listed), { token: ROOT_TOKEN })).json() as { name: string; can_push: boolean }[]).map((b) => [b.name, b]));
    assert.equal(asRoot.get('main')?.can_push, true);
  });

  test('invalid parameters are the platform\'s 400s', async () => {
    expectError(await list({ page: 'x' }), 400, { error: 'page is invalid' });
  });

  test('a project without a repository lists no branch', async () => {
    const bare = await createProject(t, { visibility: 'public' });
    const res = await t.get(url('', bare));
    expectStatus(res, 200);
    assert.deepEqual(res.json(), []);
    expectError(await t.get(url('/main', bare)), 404, { message: '404 Branch Not Found' });
  });
});

describe('POST /projects/:id/repository/branches', () => {
  test('201 with the branch, from a branch, a tag, a commit id, an abbreviated one or an expression', async () => {
    const tagged = await t.post(`/api/v4/projects/${project.id}/repository/tags`, { token: developer.token, body: { tag_name: fresh('t'), ref: initial } });
    expectStatus(tagged, 201);
    for (const [ref, commit] of [['main', head], [tagged.json().name, initial], [initial, initial], [initial.slice(0, 8), initial], ['main~1', initial]]) {
      const branch = fresh();
      const res = await create({ branch, ref });
      expectStatus(res, 201);
      expectEntity(res.json(), BranchEntity);
      assert.equal(res.json().name, branch);
      assert.equal(res.json().commit.id, commit);
      assert.equal(res.json().merged, commit !== head);
      assert.equal(res.json().default, false);
      assert.equal(await resolveRef(dir, `refs/heads/${branch}`), commit);
    }
  });

  test('names of any script that git accepts, and the form body', async () => {
    for (const branch of ['ñandú/😀', 'feature/ünïcode-名前', "o'neil", 'a.b', 'x@y', '#1', 'a%2Fb']) {
      const res = await create({ branch, ref: 'main' });
      expectStatus(res, 201);
      assert.equal(res.json().name, branch);
      expectStatus(await t.get(url(`/${encodeURIComponent(branch)}`), { token: developer.token }), 200);
    }
    const form = await t.post(url(), { token: developer.token, form: 'branch=from-form&ref=main' });
    expectStatus(form, 201);
  });

  test('names git or the platform refuse: 400 "Branch name is invalid", git never asked', async () => {
    const before = await t.get(url(), { token: developer.token, query: { per_page: '100' } });
    for (const branch of ['a b', 'a..b', '-x', '--upload-pack=touch /tmp/pwned', 'refs/heads/x', 'refs/remotes/x', 'HEAD', 'x.lock', 'a/.b', 'a//b', 'a/', '/a', 'x~1', 'x^', 'x:y', 'x?', 'x*', 'x[', 'a\\b', 'a@{1}', 'end.', 'tab\tx', 'nul\u0001x', '\uD800x', 'x'.repeat(300)]) {
      expectError(await create({ branch, ref: 'main' }), 400, { message: 'Branch name is invalid' });
    }
    const after = await t.get(url(), { token: developer.token, query: { per_page: '100' } });
    assert.deepEqual(names(after), names(before));
  });

  test('a NUL anywhere is refused before any handler', async () => {
    const res = await t.post(url(), { token: developer.token, form: 'branch=a%00b&ref=main' });
    assert.equal(res.statusCode, 400);
  });

  test('an existing branch: 400 "Branch already exists"', async () => {
    expectError(await create({ branch: 'main', ref: initial }), 400, { message: 'Branch already exists' });
    assert.equal(await resolveRef(dir, 'refs/heads/main'), head);
  });

  test('a ref that names no commit: 400 with both names, options never reaching git', async () => {
    for (const ref of ['nope', '--upload-pack=x', '-x', 'main:README.md', 'a..b', '0000000000000000000000000000000000000000', `${head}^{tree}`]) {
      const branch = fresh();
      expectError(await create({ branch, ref }), 400, { message: `Failed to create branch '${branch}': invalid reference name '${ref}'` });
      assert.equal(await resolveRef(dir, `refs/heads/${branch}`), null);
    }
  });

  test('missing or blank parameters', async () => {
    expectError(await create({ ref: 'main' }), 400, { error: 'branch is missing' });
    expectError(await create({ branch: 'x' }), 400, { error: 'ref is missing' });
    expectError(await create({ branch: ' ', ref: 'main' }), 400, { error: 'branch is empty' });
    expectError(await create({ branch: 'x', ref: '' }), 400, { error: 'ref is empty' });
  });

  test('two requests racing for one branch: exactly one 201, the other 400, the branch where the winner put it', async () => {
    for (let round = 0; round < 5; round++) {
      const branch = fresh('race');
      const [a, b] = await Promise.all([create({ branch, ref: head }), create({ branch, ref: initial })]);
      const statuses = [a.statusCode, b.statusCode].sort();
      assert.deepEqual(statuses, [201, 400]);
      const [won, lost] = a.statusCode === 201 ? [a, b] : [b, a];
      assert.deepEqual(lost.json(), { message: 'Branch already exists' });
      assert.equal(await resolveRef(dir, `refs/heads/${branch}`), won.json().commit.id);
    }
  });

  test('reporters may not: 403', async () => {
    expectError(await create({ branch: fresh(), ref: 'main' }, reporter.token), 403, { message: '403 Forbidden' });
  });

  test('protected names: who may push creates them; who may only merge, from a commit on a protected branch; others are refused', async () => {
    await protect('prod/*', { push_access_level: 40, merge_access_level: 40 });
    expectError(await create({ branch: 'prod/a', ref: 'main' }), 400, { message: 'You are not allowed to create protected branches on this project.' });
    expectStatus(await create({ branch: 'prod/a', ref: 'main' }, owner.token), 201);

    await protect('stage/*', { push_access_level: 40, merge_access_level: 30 });
    await protect('main');
    const side = await commitOn(dir, fresh('side'), { from: 'main' });
    expectError(await create({ branch: 'stage/a', ref: side }), 400, { message: 'You can only use an existing protected branch ref as the basis of a new protected branch.' });
    const res = await create({ branch: 'stage/b', ref: 'main' });
    expectStatus(res, 201);
    assert.equal(res.json().protected, true);
    assert.equal(res.json().can_push, false);
    assert.equal(res.json().developers_can_merge, true);
    await unprotect('main');
  });

  test('while the repository is read-only: 400 with the reason, nothing written', async () => {
    await setReadOnly(true);
    try {
      const branch = fresh();
      expectError(await create({ branch, ref: 'main' }), 400, { message: 'The repository is temporarily read-only. Please try again later.' });
      assert.equal(await resolveRef(dir, `refs/heads/${branch}`), null);
    } finally {
      await setReadOnly(false);
    }
  });

  test('an archived project takes no writes: 403', async () => {
    const archived = await createProject(t, { archived: true, members: [[developer.user.id, ACCESS.DEVELOPER]] });
    await giveRepository(t, archived);
    expectError(await t.post(url('', archived), { token: developer.token, body: { branch: 'x', ref: 'main' } }), 403, { message: '403 Forbidden' });
  });
});

describe('POST /projects/:id/repository/branches on an empty repository', () => {
  /** A project created through the API without a README: a repository with no branch. */
  async function emptyProject(body: Record<string, unknown> = {}): Promise<{ row: ProjectRow; dir: string }> {
    const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: fresh('Empty'), ...body } });
    expectStatus(res, 201);
    assert.equal(res.json().empty_repo, true);
    const row = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
    await addMember(t, row, developer.user.id, ACCESS.DEVELOPER);
    return { row, dir: projectRepositoryPath(t.deps.config.repositoryStorages, row) as string };
  }
  const projectOf = async (row: ProjectRow) => (await t.get(`/api/v4/projects/${row.id}`, { token: owner.token })).json();

  test('the default branch is made first with an empty README.md, then the branch from it; the project is as after a first push', async () => {
    const empty = await emptyProject();
    const res = await t.post(url('', empty.row), { token: owner.token, body: { branch: 'feature', ref: 'main' } });
    expectStatus(res, 201);
    expectEntity(res.json(), BranchEntity);
    const main = (await resolveRef(empty.dir, 'refs/heads/main')) as string;
    assert.ok(main);
    assert.equal(await resolveRef(empty.dir, 'refs/heads/feature'), main);
    assert.equal(res.json().name, 'feature');
    assert.equal(res.json().commit.id, main);
    assert.deepEqual([res.json().default, res.json().merged, res.json().protected, res.json().can_push], [false, false, false, true]);

    const commit = await getCommit(empty.dir, main);
    assert.deepEqual([commit?.message, commit?.parents, commit?.author.name], ['Add README.md', [], 'Olga Owner']);
    const readme = await t.get(`/api/v4/projects/${empty.row.id}/repository/files/README.md/raw`, { token: owner.token, query: { ref: 'main' } });
    expectStatus(readme, 200);
    assert.equal(readme.body, '');

    const after = await projectOf(empty.row);
    assert.deepEqual([after.default_branch, after.empty_repo], ['main', false]);
    // As a first push does, the default branch is protected.
    const protectedMain = await t.get(`/api/v4/projects/${empty.row.id}/protected_branches/main`, { token: owner.token });
    expectStatus(protectedMain, 200);
    const pushes = await t.deps.db.selectFrom('events').selectAll().where('project_id', '=', empty.row.id).where('action', '=', 'pushed').orderBy('id').execute();
    assert.deepEqual(
      pushes.map((e) => {
        const data = JSON.parse(e.push_data ?? '{}');
        return [e.author_id, data.ref, data.action, data.commit_to];
      }),
      [
        [owner.user.id, 'main', 'created', main],
        [owner.user.id, 'feature', 'created', main],
      ],
    );
  });

  test('the default branch is the one the project was created with; the ref may name it, or HEAD', async () => {
    const empty = await emptyProject({ default_branch: 'trunk' });
    const res = await t.post(url('', empty.row), { token: owner.token, body: { branch: 'topic', ref: 'trunk' } });
    expectStatus(res, 201);
    expectEntity(res.json(), BranchEntity);
    assert.equal(res.json().commit.id, await resolveRef(empty.dir, 'refs/heads/trunk'));
    assert.equal((await projectOf(empty.row)).default_branch, 'trunk');

    const viaHead = await emptyProject({ default_branch: 'trunk' });
    const fromHead = await t.post(url('', viaHead.row), { token: owner.token, body: { branch: 'topic', ref: 'HEAD' } });
    expectStatus(fromHead, 201);
    expectEntity(fromHead.json(), BranchEntity);
    assert.equal(fromHead.json().commit.id, await resolveRef(viaHead.dir, 'refs/heads/trunk'));
  });

  test('asking for the default branch itself: 201 with it, made with the README', async () => {
    const empty = await emptyProject();
    const res = await t.post(url('', empty.row), { token: owner.token, body: { branch: 'main', ref: 'main' } });
    expectStatus(res, 201);
    expectEntity(res.json(), BranchEntity);
    assert.deepEqual([res.json().name, res.json().default, res.json().commit.title], ['main', true, 'Add README.md']);
    assert.equal(res.json().commit.id, await resolveRef(empty.dir, 'refs/heads/main'));
    assert.equal((await projectOf(empty.row)).empty_repo, false);
    // Asked again, it exists.
    expectError(await t.post(url('', empty.row), { token: owner.token, body: { branch: 'main', ref: 'main' } }), 400, { message: 'Branch already exists' });
  });

  test('refused requests write nothing: an invalid name, another ref, a protected name, a developer who may not push the first commit', async () => {
    const empty = await emptyProject();
    const events = () => t.deps.db.selectFrom('events').select('id').where('project_id', '=', empty.row.id).execute();
    const before = await events();
    expectError(await t.post(url('', empty.row), { token: owner.token, body: { branch: 'a..b', ref: 'main' } }), 400, { message: 'Branch name is invalid' });
    expectError(await t.post(url('', empty.row), { token: owner.token, body: { branch: 'topic', ref: 'develop' } }), 400, {
      message: "Failed to create branch 'topic': invalid reference name 'develop'",
    });
    expectStatus(await t.post(`/api/v4/projects/${empty.row.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'prod/*', push_access_level: 0, merge_access_level: 0 } }), 201);
    expectError(await t.post(url('', empty.row), { token: owner.token, body: { branch: 'prod/a', ref: 'main' } }), 400, {
      message: 'You are not allowed to create protected branches on this project.',
    });
    // The namespace's default branch protection (full) keeps developers from pushing the first commit.
    expectError(await t.post(url('', empty.row), { token: developer.token, body: { branch: 'feature', ref: 'main' } }), 400, {
      message: 'You are not allowed to push into this branch',
    });
    assert.equal(await resolveRef(empty.dir, 'refs/heads/main'), null);
    const after = await projectOf(empty.row);
    assert.deepEqual([after.empty_repo, after.default_branch], [true, null]);
    assert.deepEqual(await events(), before);
  });
});

describe('DELETE /projects/:id/repository/branches/:branch', () => {
  const remove = (name: string, token = developer.token, headers: Record<string, string> = {}) => t.del(url(`/${encodeURIComponent(name)}`), { token, headers });

  test('204, and the branch is gone', async () => {
    const branch = fresh('feature/gone');
    await setBranch(branch, head);
    const res = await remove(branch);
    expectStatus(res, 204);
    assert.equal(res.body, '');
    assert.equal(await resolveRef(dir, `refs/heads/${branch}`), null);
    expectError(await remove(branch), 404, { message: '404 Branch Not Found' });
  });

  test('a name git refuses: 400; reporters: 403', async () => {
    expectError(await t.del(url('/a..b'), { token: developer.token }), 400, { message: 'The branch refname is invalid' });
    expectError(await t.del(url('/--upload-pack=x'), { token: developer.token }), 400, { message: 'The branch refname is invalid' });
    const branch = fresh();
    await setBranch(branch, head);
    expectError(await remove(branch, reporter.token), 403, { message: '403 Forbidden' });
  });

  test('the default branch is never deleted', async () => {
    expectError(await remove('main', owner.token), 400, { message: 'The default branch of a project cannot be deleted.' });
    assert.equal(await resolveRef(dir, 'refs/heads/main'), head);
  });

  test('a protected branch: only maintainers delete it through the API', async () => {
    const branch = fresh('keep');
    await setBranch(branch, head);
    await protect(branch);
    expectError(await remove(branch), 400, {
      message: 'You are not allowed to delete protected branches from this project. Only a project maintainer or owner can delete a protected branch.',
    });
    expectStatus(await remove(branch, owner.token), 204);
  });

  test('If-Unmodified-Since before the head commit\'s authored date: 412', async () => {
    const branch = fresh();
    await setBranch(branch, await commitOn(dir, fresh('dated'), { from: 'main', date: new Date('2024-05-01T10:00:00Z') }));
    expectError(await remove(branch, developer.token, { 'if-unmodified-since': 'Wed, 01 May 2024 09:59:59 GMT' }), 412, { message: '412 Precondition Failed' });
    expectStatus(await remove(branch, developer.token, { 'if-unmodified-since': 'Wed, 01 May 2024 10:00:00 GMT' }), 204);
  });

  test('while the repository is read-only: 400, the branch kept', async () => {
    const branch = fresh();
    await setBranch(branch, head);
    await setReadOnly(true);
    try {
      expectError(await remove(branch), 400, { message: 'The repository is temporarily read-only. Please try again later.' });
    } finally {
      await setReadOnly(false);
    }
    assert.equal(await resolveRef(dir, `refs/heads/${branch}`), head);
  });

  test('two deletions racing: one 204, the other a 404 or 400, never a 5xx', async () => {
    const branch = fresh();
    await setBranch(branch, head);
    const statuses = (await Promise.all([remove(branch), remove(branch)])).map((r) => r.statusCode).sort();
    assert.equal(statuses[0], 204);
    assert.ok([400, 404].includes(statuses[1]), String(statuses));
  });
});

describe('every change is recorded as a push', () => {
  test('creating and deleting a branch each leave a push event by the caller, with the ref and both ids', async () => {
    const pushes = () => t.deps.db.selectFrom('events').selectAll().where('project_id', '=', project.id).where('action', '=', 'pushed').orderBy('id').execute();
    const before = (await pushes()).length;
    const branch = fresh('recorded');
    expectStatus(await create({ branch, ref: 'main' }), 201);
    expectStatus(await t.del(url(`/${branch}`), { token: developer.token }), 204);
    const recorded = (await pushes()).slice(before);
    assert.equal(recorded.length, 2);
    assert.deepEqual(
      recorded.map((e) => e.author_id),
      [developer.user.id, developer.user.id],
    );
    const data = recorded.map((e) => JSON.parse(e.push_data ?? '{}'));
    assert.deepEqual(
      data.map((d) => [d.ref, d.action, d.commit_from, d.commit_to]),
      [
        [branch, 'created', null, head],
        [branch, 'removed', head, null],
      ],
    );
  });
});

describe('DELETE /projects/:id/repository/merged_branches', () => {
  test('202, then every branch merged into the default branch is gone, except protected ones', async () => {
    const p = await createProject(t, { members: [[developer.user.id, ACCESS.DEVELOPER]] });
    const repo = await giveRepository(t, p);
    const ahead = await commitOn(repo.dir, 'unmerged', { from: 'main' });
    for (const name of ['merged/a', 'merged-b', 'kept-protected']) await updateRef(repo.dir, `refs/heads/${name}`, repo.head);
    const mainHead = await commitOn(repo.dir, 'main');
    await updateRef(repo.dir, 'refs/heads/level', mainHead);
    expectStatus(await t.post(`/api/v4/projects/${p.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'kept-*' } }), 201);

    await t.runJobs(); // the statistics refreshes of the writes above
    const res = await t.del(`/api/v4/projects/${p.id}/repository/merged_branches`, { token: developer.token });
    expectError(res, 202, { message: '202 Accepted' });
    // Queued, as on the platform: nothing is gone until the job has run.
    assert.equal(await resolveRef(repo.dir, 'refs/heads/merged-b'), repo.head);
    // The deletions are a change of refs: the project's statistics follow.
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['branches.delete_merged', true], ['project.statistics.refresh', true]]);
    const left = await t.get(url('', p), { token: developer.token });
    assert.deepEqual(names(left), ['kept-protected', 'level', 'main', 'unmerged']);
    assert.equal(await resolveRef(repo.dir, 'refs/heads/unmerged'), ahead);
  });

  test('reporters: 403; read-only: 400; nothing deleted', async () => {
    const p = await createProject(t, { members: [[developer.user.id, ACCESS.DEVELOPER], [reporter.user.id, ACCESS.REPORTER]] });
    const repo = await giveRepository(t, p);
    await updateRef(repo.dir, 'refs/heads/old', repo.head);
    await commitOn(repo.dir, 'main');
    expectError(await t.del(`/api/v4/projects/${p.id}/repository/merged_branches`, { token: reporter.token }), 403, { message: '403 Forbidden' });
    await t.deps.db.updateTable('projects').set({ repository_read_only: true }).where('id', '=', p.id).execute();
    await t.runJobs();
    expectError(await t.del(`/api/v4/projects/${p.id}/repository/merged_branches`, { token: developer.token }), 400, {
      message: 'The repository is temporarily read-only. Please try again later.',
    });
    assert.deepEqual(await t.runJobs(), []);
    assert.equal(await resolveRef(repo.dir, 'refs/heads/old'), repo.head);
  });
});
