// Repository files through the API on real repositories: the file entity and its X-Gitlab-*
// headers, raw content, text and base64 round trips (binary content, odd names), create / update /
// delete with the platform's refusals, start_branch, last_commit_id, path tricks, protected
// branches, the read-only flag, huge bodies, and two updates racing on one branch.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addMember, unprotectDefaultBranch } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { getCommit, readBlob, readTree } from '../../git/commits.ts';
import { resolveRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { runGit } from '../../git/run.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { FileCommitEntity, FileEntity } from './repository-files.schemas.ts';

let t: TestApp;
let owner: TestUser;
let developer: TestUser;
let reporter: TestUser;
let project: ProjectRow;
let dir: string;

async function createProject(token: string, body: Record<string, unknown>): Promise<ProjectRow> {
  const res = await t.post('/api/v4/projects', { token, body });
  expectStatus(res, 201);
  await unprotectDefaultBranch(t, res.json());
  return t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
}

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga', name: 'Olga Owner' });
  developer = await t.user({ username: 'dev', name: 'Dev Eloper' });
  reporter = await t.user({ username: 'rep' });
  project = await createProject(owner.token, { name: 'Content', description: 'About', initialize_with_readme: true, visibility: 'public' });
  await addMember(t, project, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, project, reporter.user.id, ACCESS.REPORTER);
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
});
after(() => t.close());

const fileUrl = (path: string, suffix = '', p = project) => `/api/v4/projects/${p.id}/repository/files/${encodeURIComponent(path)}${suffix}`;
const head = (branch = 'main') => resolveRef(dir, `refs/heads/${branch}`);
const commitBody = (extra: Record<string, unknown> = {}) => ({ branch: 'main', commit_message: 'change', ...extra });
const create = (path: string, extra: Record<string, unknown> = {}, token = developer.token) =>
  t.post(fileUrl(path), { token, body: commitBody({ content: `content of ${path}`, ...extra }) });
const update = (path: string, extra: Record<string, unknown> = {}, token = developer.token) =>
  t.put(fileUrl(path), { token, body: commitBody({ content: `new content of ${path}`, ...extra }) });
const remove = (path: string, extra: Record<string, unknown> = {}, token = developer.token) => t.del(fileUrl(path), { token, body: commitBody(extra) });
const show = (path: string, ref = 'main', token?: string) => t.get(fileUrl(path), { token, query: { ref } });
const raw = (path: string, query: Record<string, string> = {}, token?: string) => t.get(fileUrl(path, '/raw'), { token, query });
const contentOf = async (path: string, ref = 'main') => (await readBlob(dir, ref, path))?.content ?? null;
let sequence = 0;
const fresh = (prefix = 'f') => `${prefix}-${++sequence}.txt`;
const setReadOnly = (value: boolean) => t.deps.db.updateTable('projects').set({ repository_read_only: value }).where('id', '=', project.id).execute();

describe('GET and HEAD /projects/:id/repository/files/:file_path', () => {
  test('the file entity: base64 content, its digest, the commit and the last commit that changed it, mirrored in X-Gitlab-* headers', async () => {
    const readmeCommit = (await head()) as string;
    const other = fresh();
    expectStatus(await create(other), 201);
    const tip = (await head()) as string;
    const res = await show('README.md', 'main', developer.token);
    expectStatus(res, 200);
    const body = res.json();
    expectEntity(body, FileEntity);
    const content = '# Content\n\nAbout';
    assert.deepEqual(body, {
      file_name: 'README.md',
      file_path: 'README.md',
      size: Buffer.byteLength(content),
      encoding: 'base64',
      content_sha256: (await import('node:crypto')).createHash('sha256').update(content).digest('hex'),
      ref: 'main',
      blob_id: body.blob_id,
      commit_id: tip,
      last_commit_id: readmeCommit,
      execute_filemode: false,
      content: Buffer.from(content).toString('base64'),
    });
    assert.match(body.blob_id, /^[0-9a-f]{40}$/);
    assert.equal(res.headers['content-type'], 'application/json');
    const expected: Record<string, string> = {
      'x-gitlab-file-name': 'README.md',
      'x-gitlab-file-path': 'README.md',
      'x-gitlab-size': String(body.size),
      'x-gitlab-encoding': 'base64',
      'x-gitlab-content-sha256': body.content_sha256,
      'x-gitlab-ref': 'main',
      'x-gitlab-blob-id': body.blob_id,
      'x-gitlab-commit-id': tip,
      'x-gitlab-last-commit-id': readmeCommit,
      'x-gitlab-execute-filemode': 'false',
    };
    for (const [name, value] of Object.entries(expected)) assert.equal(res.headers[name], value, name);

    const headRes = await t.request('HEAD', fileUrl('README.md'), { query: { ref: 'main' } });
    expectStatus(headRes, 200);
    assert.equal(headRes.body, '');
    for (const [name, value] of Object.entries(expected)) assert.equal(headRes.headers[name], value, name);
  });

  test('any revision names the commit: a sha, HEAD, an expression; the answer echoes it', async () => {
    const tip = (await head()) as string;
    for (const ref of [tip, tip.slice(0, 8), 'HEAD', 'main~0']) {
      const res = await show('README.md', ref);
      expectStatus(res, 200);
      assert.equal(res.json().ref, ref);
      assert.equal(res.json().commit_id, tip);
    }
  });

  test('refusals: ref missing or blank, a ref that names no commit, a file or directory that is not there', async () => {
    expectError(await t.get(fileUrl('README.md')), 400, { error: 'ref is missing' });
    expectError(await show('README.md', ' '), 400, { error: 'ref is empty' });
    for (const ref of ['nope', '-x', 'a b', 'main:README.md', '0'.repeat(40)]) expectError(await show('README.md', ref), 404, { message: '404 Commit Not Found' });
    expectError(await show('missing.txt'), 404, { message: '404 File Not Found' });
    expectStatus(await create('dir/inside.txt'), 201);
    expectError(await show('dir'), 404, { message: '404 File Not Found' });
    const headRes = await t.request('HEAD', fileUrl('missing.txt'), { query: { ref: 'main' } });
    expectStatus(headRes, 404);
  });
});

describe('GET /projects/:id/repository/files/:file_path/raw', () => {
  test('the bytes, as text or as binary, with the metadata headers and no caching; the default branch without a ref', async () => {
    const res = await raw('README.md');
    expectStatus(res, 200);
    assert.equal(res.body, '# Content\n\nAbout');
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(res.headers['content-disposition'], `inline; filename="README.md"; filename*=UTF-8''README.md`);
    assert.equal(res.headers['cache-control'], 'no-cache, no-store, max-age=0, must-revalidate');
    assert.equal(res.headers['x-gitlab-file-path'], 'README.md');
    assert.equal(res.headers['x-gitlab-ref'], '');
    assert.equal(res.headers['x-gitlab-commit-id'], await head());

    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    expectStatus(await create('bin/all-bytes.bin', { content: bytes.toString('base64'), encoding: 'base64' }), 201);
    const binary = await raw('bin/all-bytes.bin', { ref: 'main' });
    expectStatus(binary, 200);
    assert.equal(binary.headers['content-type'], 'application/octet-stream');
    assert.deepEqual(binary.rawPayload, bytes);
    assert.equal(binary.headers['x-gitlab-ref'], 'main');

    const headRes = await t.request('HEAD', fileUrl('README.md', '/raw'));
    expectStatus(headRes, 200);
    assert.equal(headRes.body, '');
    expectError(await raw('README.md', { ref: 'nope' }), 404, { message: '404 Commit Not Found' });
    expectError(await raw('nope.md'), 404, { message: '404 File Not Found' });
    expectError(await raw('README.md', { ref: '' }), 400, { error: 'ref is empty' });
  });
});

describe('round trips', () => {
  test('text and base64 content, binary bytes, empty files, and unicode', async () => {
    const cases: [string, Buffer, Record<string, unknown>][] = [
      ['rt/text.txt', Buffer.from('héllo wörld ☃\r\nline 2\n'), {}],
      ['rt/empty.txt', Buffer.alloc(0), {}],
      ['rt/binary.dat', Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 10, 13, 0x80]), { encoding: 'base64' }],
      ['rt/base64-text.txt', Buffer.from('decoded ✓'), { encoding: 'base64' }],
    ];
    for (const [path, bytes, extra] of cases) {
      const content = extra.encoding === 'base64' ? bytes.toString('base64') : bytes.toString('utf8');
      const res = await create(path, { content, ...extra });
      expectStatus(res, 201);
      expectEntity(res.json(), FileCommitEntity);
      assert.deepEqual(res.json(), { file_path: path, branch: 'main' });
      assert.deepEqual(await contentOf(path), bytes, path);
      const shown = await show(path);
      assert.deepEqual(Buffer.from(shown.json().content, 'base64'), bytes, path);
      assert.equal(shown.json().size, bytes.length);
      assert.deepEqual((await raw(path)).rawPayload, bytes, path);
    }
  });

  test('odd file names survive every route: spaces, unicode, emoji, quotes, percent signs, a tab', async () => {
    const names = ['odd dir/ünïcødé ☃.txt', 'emoji 👩‍👩‍👧 family.md', `quote"and'apos.txt`, 'percent%2Fnot-a-slash.txt', 'tab\there.txt', 'ends with space .txt', '-leading-dash.txt', 'colon:name.txt', 'control\u0001char.txt'];
    for (const name of names) {
      const created = await create(name, { content: name });
      expectStatus(created, 201);
      assert.equal(created.json().file_path, name);
      assert.equal((await contentOf(name))?.toString(), name);
      const shown = await show(name);
      expectStatus(shown, 200);
      assert.equal(shown.json().file_path, name);
      assert.equal(shown.json().file_name, name.slice(name.lastIndexOf('/') + 1));
      // Header values carry the name's UTF-8 bytes, control characters (which no header may hold) percent-encoded.
      assert.equal(Buffer.from(shown.headers['x-gitlab-file-path'] as string, 'latin1').toString('utf8'), name.replace('\u0001', '%01'));
      const rawRes = await raw(name);
      expectStatus(rawRes, 200);
      assert.equal(rawRes.body, name);
      expectStatus(await update(name, { content: 'updated' }), 200);
      expectStatus(await remove(name), 204);
      assert.equal(await contentOf(name), null);
    }
  });
});

describe('POST, PUT, DELETE', () => {
  test('create: one commit with the message, the given author and the caller as committer; an existing file is refused', async () => {
    const path = fresh();
    const before = await head();
    const res = await create(path, { commit_message: 'Add a file\n\nwith a body', author_name: 'Ann Author', author_email: 'ann@example.com' });
    expectStatus(res, 201);
    const commit = await getCommit(dir, 'main');
    assert.ok(commit);
    assert.deepEqual(commit.parents, [before]);
    assert.equal(commit.message, 'Add a file\n\nwith a body');
    assert.deepEqual([commit.author.name, commit.author.email], ['Ann Author', 'ann@example.com']);
    assert.deepEqual([commit.committer.name, commit.committer.email], ['Dev Eloper', 'dev@example.com']);

    const again = await create(path);
    expectError(again, 400, { message: 'A file with this name already exists' });
    assert.equal(await head(), commit.id);
    // Without author fields the caller is the author too.
    expectStatus(await create(fresh()), 201);
    const second = await getCommit(dir, 'main');
    assert.deepEqual([second?.author.name, second?.author.email], ['Dev Eloper', 'dev@example.com']);
  });

  test('update: new content in one commit, execute_filemode, last_commit_id checked; a missing file is refused', async () => {
    const path = fresh();
    expectStatus(await create(path), 201);
    const created = await show(path);
    const lastCommit = created.json().last_commit_id;
    const res = await update(path, { content: 'v2', last_commit_id: lastCommit, execute_filemode: true });
    expectStatus(res, 200);
    expectEntity(res.json(), FileCommitEntity);
    assert.deepEqual(res.json(), { file_path: path, branch: 'main' });
    assert.equal((await contentOf(path))?.toString(), 'v2');
    assert.equal((await show(path)).json().execute_filemode, true);

    const before = await head();
    expectError(await update(path, { content: 'v3', last_commit_id: lastCommit }), 400, {
      message: 'You are attempting to update a file that has changed since you started editing it.',
    });
    assert.equal(await head(), before);
    expectStatus(await update(path, { content: 'v3', execute_filemode: false }), 200);
    assert.equal((await show(path)).json().execute_filemode, false);
    expectError(await update('never-was.txt'), 400, { message: "A file with this name doesn't exist" });
  });

  test('delete: 204 and the file is gone; missing files and stale last_commit_id are refused', async () => {
    const path = fresh();
    expectStatus(await create(path), 201);
    const lastCommit = (await show(path)).json().last_commit_id;
    expectStatus(await update(path), 200);
    expectError(await remove(path, { last_commit_id: lastCommit }), 400, { message: 'You are attempting to delete a file that has been previously updated.' });
    const res = await remove(path);
    expectStatus(res, 204);
    assert.equal(res.body, '');
    expectError(await show(path), 404, { message: '404 File Not Found' });
    expectError(await remove(path), 400, { message: "A file with this name doesn't exist" });
    // python-gitlab sends the parameters of a delete in the query string.
    const other = fresh();
    expectStatus(await create(other), 201);
    expectStatus(await t.del(fileUrl(other), { token: developer.token, query: { branch: 'main', commit_message: 'bye' } }), 204);
  });

  test('missing and malformed parameters', async () => {
    const path = fresh();
    expectError(await t.post(fileUrl(path), { token: developer.token, body: { content: 'x', commit_message: 'm' } }), 400, { error: 'branch is missing' });
    expectError(await t.post(fileUrl(path), { token: developer.token, body: { branch: 'main', content: 'x' } }), 400, { error: 'commit_message is missing' });
    expectError(await t.post(fileUrl(path), { token: developer.token, body: { branch: 'main', commit_message: 'm' } }), 400, { error: 'content is missing' });
    expectError(await t.post(fileUrl(path), { token: developer.token, body: { branch: '', commit_message: 'm', content: 'x' } }), 400, { error: 'branch is empty' });
    expectError(await create(path, { encoding: 'utf-16' }), 400, { error: 'encoding does not have a valid value' });
    expectError(await t.del(fileUrl(path), { token: developer.token, body: { branch: 'main' } }), 400, { error: 'commit_message is missing' });
  });
});

describe('branches', () => {
  test('start_branch creates the branch from another; without it the branch must exist', async () => {
    const path = fresh();
    const mainHead = await head();
    const res = await create(path, { branch: 'feature/new', start_branch: 'main' });
    expectStatus(res, 201);
    assert.deepEqual(res.json(), { file_path: path, branch: 'feature/new' });
    const commit = await getCommit(dir, 'feature/new');
    assert.deepEqual(commit?.parents, [mainHead]);
    assert.equal(await head(), mainHead);
    assert.equal((await show(path, 'feature/new')).json().file_path, path);
    // The branch name goes URL-encoded in a ref too.
    expectStatus(await show(path, 'feature/new'), 200);

    expectError(await create(fresh(), { branch: 'no-such-branch' }), 400, { message: 'You can only create or edit files when you are on a branch' });
    expectError(await create(fresh(), { branch: 'other', start_branch: 'no-such-branch' }), 400, { message: 'You can only create or edit files when you are on a branch' });
    expectError(await create(fresh(), { branch: 'feature/new', start_branch: 'main' }), 400, {
      message: "A branch called 'feature/new' already exists. Switch to that branch in order to make changes",
    });
    for (const bad of ['a..b', 'has space', '-dash', 'HEAD', 'x.lock', 'refs/heads/x']) {
      expectError(await create(fresh(), { branch: bad, start_branch: 'main' }), 400, { message: `Something went wrong when we tried to create '${bad}' for you: Branch name is invalid` });
    }
    expectError(await create(fresh(), { branch: 'a..b' }), 400, { message: 'You can only create or edit files when you are on a branch' });
  });

  test('a protected branch takes pushes per its push access level; 400 for the others', async () => {
    expectStatus(await t.post(`/api/v4/projects/${project.id}/protected_branches`, { token: ROOT_TOKEN, body: { name: 'stable*', push_access_level: ACCESS.MAINTAINER } }), 201);
    expectStatus(await create(fresh(), { branch: 'stable-1', start_branch: 'main' }, owner.token), 201);
    const before = await head('stable-1');
    expectError(await create(fresh(), { branch: 'stable-1' }), 400, { message: 'You are not allowed to push into this branch' });
    expectError(await create(fresh(), { branch: 'stable-2', start_branch: 'main' }), 400, { message: 'You are not allowed to push into this branch' });
    assert.equal(await head('stable-1'), before);
    assert.equal(await head('stable-2'), null);
    expectStatus(await create(fresh(), { branch: 'stable-1' }, owner.token), 201);
  });
});

describe('who may write', () => {
  test('a reporter may read but not write (403); anonymous callers read public files and may not write', async () => {
    expectStatus(await show('README.md', 'main', reporter.token), 200);
    expectStatus(await show('README.md', 'main'), 200);
    const before = await head();
    expectError(await create(fresh(), {}, reporter.token), 403, { message: '403 Forbidden' });
    expectError(await update('README.md', {}, reporter.token), 403, { message: '403 Forbidden' });
    expectError(await remove('README.md', {}, reporter.token), 403, { message: '403 Forbidden' });
    expectError(await t.post(fileUrl(fresh()), { body: commitBody({ content: 'x' }) }), 403, { message: '403 Forbidden' });
    assert.equal(await head(), before);
  });

  test('a read_api token reads; writing needs api', async () => {
    const { token } = await t.user({}, ['read_api']);
    const limited = await t.user({ username: 'limited' }, ['read_repository']);
    await addMember(t, project, limited.user.id, ACCESS.MAINTAINER);
    expectStatus(await show('README.md', 'main', token), 200);
    expectStatus(await show('README.md', 'main', limited.token), 200);
    expectStatus(await raw('README.md', {}, limited.token), 200);
    expectStatus(await create(fresh(), {}, limited.token), 403);
  });
});

describe('path tricks', () => {
  const unchanged = async (before: string | null) => assert.equal(await head(), before);

  test('climbing out, absolute paths and newlines are parameter errors, on reads and writes alike', async () => {
    const before = await head();
    const refused = { error: 'file_path should be a valid file path' };
    const encoded = ['..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', 'a%2F..%2F..%2Fb', 'a%2F..', '..%252Fetc', '..%5Cwindows', 'a%0Ab'];
    for (const path of encoded) {
      const url = `/api/v4/projects/${project.id}/repository/files/${path}`;
      expectError(await t.get(url, { query: { ref: 'main' } }), 400, refused);
      expectError(await t.get(`${url}/raw`), 400, refused);
      expectError(await t.post(url, { token: developer.token, body: commitBody({ content: 'x' }) }), 400, refused);
      expectError(await t.put(url, { token: developer.token, body: commitBody({ content: 'x' }) }), 400, refused);
      expectError(await t.del(url, { token: developer.token, body: commitBody() }), 400, refused);
    }
    // A bare `..` segment is resolved by the router before any route sees it.
    for (const path of ['..', '%2E%2E']) {
      expectError(await t.post(`/api/v4/projects/${project.id}/repository/files/${path}`, { token: developer.token, body: commitBody({ content: 'x' }) }), 404, { error: '404 Not Found' });
    }
    await unchanged(before);
  });

  test('the repository directory itself is never named: .git paths are no files to read and invalid to write', async () => {
    const before = await head();
    for (const path of ['.git/config', '.git', '.GIT/HEAD', 'a/.git/x', '.git./x']) {
      expectError(await show(path), 404, { message: '404 File Not Found' });
      expectError(await create(path), 400, { message: `invalid path: '${path}'` });
    }
    await unchanged(before);
    assert.equal((await readTree(dir, 'main'))?.some((e) => e.name.toLowerCase().startsWith('.git')), false);
  });

  test('NUL bytes are refused before routing; an unescaped slash does not route; %2F is a directory separator', async () => {
    const before = await head();
    const nul = await t.post(`/api/v4/projects/${project.id}/repository/files/a%00b`, { token: developer.token, body: commitBody({ content: 'x' }) });
    assert.equal(nul.statusCode, 400);
    assert.equal(nul.body, 'Bad Request');
    const nulContent = await create(fresh(), { content: 'a\u0000b' });
    assert.equal(nulContent.statusCode, 400);
    await unchanged(before);
    expectError(await t.get(`/api/v4/projects/${project.id}/repository/files/deep/er/file.txt`, { query: { ref: 'main' } }), 404, { error: '404 Not Found' });
    expectStatus(await create('deep/er/file.txt'), 201);
    assert.deepEqual((await readTree(dir, 'main', 'deep/er'))?.map((e) => e.name), ['file.txt']);
    // Redundant separators and `.` components are the same path.
    expectStatus(await t.get(`/api/v4/projects/${project.id}/repository/files/deep%2F%2Fer%2F.%2Ffile.txt`, { query: { ref: 'main' } }), 200);
  });
});

describe('the read-only flag', () => {
  test('every write is refused with the message while it is set; reads go on', async () => {
    const path = fresh();
    expectStatus(await create(path), 201);
    const before = await head();
    await setReadOnly(true);
    try {
      const refused = { message: REPOSITORY_READ_ONLY_MESSAGE };
      expectError(await create(fresh()), 400, refused);
      expectError(await update(path), 400, refused);
      expectError(await remove(path), 400, refused);
      expectError(await create(fresh(), { branch: 'ro-branch', start_branch: 'main' }), 400, refused);
      assert.equal(await head(), before);
      assert.equal(await head('ro-branch'), null);
      expectStatus(await show(path), 200);
    } finally {
      await setReadOnly(false);
    }
    expectStatus(await update(path), 200);
  });
});

describe('limits and races', () => {
  test('a body above the limit is refused with 413 and nothing is written', async () => {
    const before = await head();
    const res = await create(fresh(), { content: 'x'.repeat(11 * 1024 * 1024) });
    expectError(res, 413, { message: '413 Request Entity Too Large' });
    assert.equal(await head(), before);
  });

  test('two updates of one file with the same last_commit_id: exactly one wins, the other is refused, history stays linear', async () => {
    for (let round = 0; round < 4; round++) {
      const path = fresh('race');
      expectStatus(await create(path), 201);
      const base = (await head()) as string;
      const lastCommit = (await show(path)).json().last_commit_id;
      const [a, b] = await Promise.all([
        update(path, { content: 'from A', last_commit_id: lastCommit }),
        update(path, { content: 'from B', last_commit_id: lastCommit }, owner.token),
      ]);
      const statuses = [a.statusCode, b.statusCode].sort();
      assert.deepEqual(statuses, [200, 400], `${a.body} ${b.body}`);
      const loser = a.statusCode === 400 ? a : b;
      assert.ok(
        [
          'You are attempting to update a file that has changed since you started editing it.',
          'Could not update refs/heads/main. Please refresh and try again.',
        ].includes(loser.json().message),
        loser.body,
      );
      const tip = await getCommit(dir, 'main');
      assert.deepEqual(tip?.parents, [base]);
      assert.equal((await contentOf(path))?.toString(), a.statusCode === 200 ? 'from A' : 'from B');
    }
    await runGit(dir, ['fsck', '--no-dangling']);
  });

  test('racing creations of different files on one branch never lose a commit that was answered 201', async () => {
    const paths = Array.from({ length: 6 }, () => fresh('many'));
    const results = await Promise.all(paths.map((p) => create(p)));
    for (const [i, res] of results.entries()) {
      if (res.statusCode === 201) assert.ok(await contentOf(paths[i]), paths[i]);
      else expectError(res, 400, { message: 'Could not update refs/heads/main. Please refresh and try again.' });
    }
    assert.ok(results.some((r) => r.statusCode === 201));
  });
});

describe('an empty repository', () => {
  test('reads find no commit; maintainers make the first commit, developers may not under the default protection', async () => {
    const empty = await createProject(owner.token, { name: 'Empty', visibility: 'private' });
    await addMember(t, empty, developer.user.id, ACCESS.DEVELOPER);
    expectError(await t.get(fileUrl('README.md', '', empty), { token: owner.token, query: { ref: 'main' } }), 404, { message: '404 Commit Not Found' });
    const body = commitBody({ content: 'first' });
    expectError(await t.post(fileUrl('first.txt', '', empty), { token: developer.token, body }), 400, { message: 'You are not allowed to push into this branch' });
    expectError(await t.put(fileUrl('first.txt', '', empty), { token: owner.token, body }), 400, { message: "A file with this name doesn't exist" });
    expectStatus(await t.post(fileUrl('first.txt', '', empty), { token: owner.token, body }), 201);
    const emptyDir = projectRepositoryPath(t.deps.config.repositoryStorages, empty) as string;
    const first = await getCommit(emptyDir, 'main');
    assert.deepEqual(first?.parents, []);
    // The commit is recorded as a push: the project is no longer empty, and the owner pushed.
    const row = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', empty.id).executeTakeFirstOrThrow();
    assert.deepEqual([row.empty_repo, row.default_branch], [false, 'main']);
    const pushes = await t.deps.db.selectFrom('events').select(['author_id', 'push_data']).where('project_id', '=', empty.id).where('action', '=', 'pushed').execute();
    assert.equal(pushes.length, 1);
    assert.equal(pushes[0].author_id, owner.user.id);
    assert.equal(JSON.parse(pushes[0].push_data as string).commit_to, first?.id);
    expectStatus(await t.get(fileUrl('first.txt', '', empty), { token: owner.token, query: { ref: 'main' } }), 200);
  });
});
