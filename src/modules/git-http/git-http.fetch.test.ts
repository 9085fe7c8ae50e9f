// Clone, fetch and ls-remote with the real git CLI against a listening server: every kind of
// credential, protocol v0 and v2, anonymous access by visibility, and the platform's refusals.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import type { JobTokenResolver } from '../../core/auth/job-tokens.ts';
import type { Deps } from '../../core/deps.ts';
import type { NamespaceRow, ProjectRow } from '../../db/schema.ts';
import { type GitCli, gitCli, gitUrl } from '../../../test/git-cli.ts';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { addMember, createGroup, unprotectDefaultBranch } from '../../../test/factories.ts';
import { listeningTestApp } from '../../../test/listening.ts';

let t: TestApp;
let host: string;
let git: GitCli;
let group: NamespaceRow;
let privateProject: ProjectRow;
let internalProject: ProjectRow;
let publicProject: ProjectRow;
let developer: TestUser;
let guest: TestUser;
let outsider: TestUser;
let mainId: string;

const JOB_TOKEN = 'glcbt-fixture-job-token-for-git';
const ACCESS_DENIED = 'HTTP Basic: Access denied\n';

async function apiProject(name: string, visibility: string, namespaceId: number): Promise<ProjectRow> {
  const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name, path: name, visibility, namespace_id: namespaceId, initialize_with_readme: true } });
  assert.equal(res.statusCode, 201, res.body);
  await unprotectDefaultBranch(t, res.json());
  return t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
}

const as = (user: TestUser, login = 'anything') => ({ login, password: user.token });
const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/** Clones into a fresh directory; the exit status, output and the directory. */
async function clone(url: string, options: string[] = []) {
  const dir = path.join(git.root, `clone-${randomBytes(4).toString('hex')}`);
  return { ...(await git.run([...options, 'clone', '--quiet', url, dir])), dir };
}

before(async () => {
  ({ t, host } = await listeningTestApp());
  git = gitCli();
  developer = await t.user({ username: 'dev' });
  guest = await t.user({ username: 'guest' });
  outsider = await t.user({ username: 'outsider' });
  const top = await createGroup(t, { path: 'top', visibility: 'public' });
  const middle = await createGroup(t, { path: 'middle', parent: top, visibility: 'public' });
  group = await createGroup(t, { path: 'Deep', parent: middle, visibility: 'public' });
  privateProject = await apiProject('secret', 'private', group.id);
  internalProject = await apiProject('inside', 'internal', group.id);
  publicProject = await apiProject('open', 'public', group.id);
  await addMember(t, privateProject, developer.user.id, ACCESS.DEVELOPER);
  await addMember(t, privateProject, guest.user.id, ACCESS.GUEST);
  mainId = (await git.ok(['ls-remote', gitUrl(host, publicProject.full_path), 'refs/heads/main'])).split('\t')[0];
});
after(async () => {
  git.close();
  await t.close();
});

describe('credentials', () => {
  test('a personal access token, whatever the user name', async () => {
    for (const login of ['dev', 'anything', 'oauth2-not']) {
      const { code, stderr, dir } = await clone(gitUrl(host, privateProject.full_path, as(developer, login)));
      assert.equal(code, 0, stderr);
      assert.equal((await git.ok(['rev-parse', 'HEAD'], dir)).trim().length, 40);
    }
  });

  test('oauth2 with an OAuth token', async () => {
    const grant = await t.post('/oauth/token', { body: { grant_type: 'password', username: 'dev', password: PASSWORD } });
    assert.equal(grant.statusCode, 200, grant.body);
    const { code, stderr } = await clone(gitUrl(host, privateProject.full_path, { login: 'oauth2', password: grant.json().access_token }));
    assert.equal(code, 0, stderr);
    // Another login does not make an OAuth token a personal one.
    const other = await clone(gitUrl(host, privateProject.full_path, { login: 'dev', password: grant.json().access_token }));
    assert.notEqual(other.code, 0);
  });

  test('a user name (or email) and password', async () => {
    for (const login of ['dev', 'DEV', 'dev@example.com']) {
      const { code, stderr } = await clone(gitUrl(host, privateProject.full_path, { login, password: PASSWORD }));
      assert.equal(code, 0, `${login}: ${stderr}`);
    }
  });

  test('a project access token works for its own project only', async () => {
    const res = await t.post(`/api/v4/projects/${privateProject.id}/access_tokens`, { token: ROOT_TOKEN, body: { name: 'ci', scopes: ['read_repository'], access_level: 20 } });
    assert.equal(res.statusCode, 201, res.body);
    const token = { login: 'bot', password: res.json().token as string };
    assert.equal((await clone(gitUrl(host, privateProject.full_path, token))).code, 0);
    const elsewhere = await fetch(`${host}/${publicProject.full_path}.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic(token.login, token.password) } });
    assert.equal(elsewhere.status, 401);
  });

  test('gitlab-ci-token with a job token, through the resolver CI registers', async () => {
    const resolver: JobTokenResolver = async (_db, token) => (token === JOB_TOKEN ? { user: developer.user, jobId: 77 } : null);
    const deps = t.deps as { -readonly [K in keyof Deps]: Deps[K] };
    const original = deps.jobTokens;
    deps.jobTokens = resolver;
    try {
      const { code, stderr, dir } = await clone(gitUrl(host, privateProject.full_path, { login: 'gitlab-ci-token', password: JOB_TOKEN }));
      assert.equal(code, 0, stderr);
      // A job token never pushes.
      await git.commit(dir, 'ci.txt', 'ci\n', 'From a job');
      const push = await git.run(['push', 'origin', 'HEAD:refs/heads/from-ci'], dir);
      assert.notEqual(push.code, 0);
      assert.match(push.stderr, /remote: You are not allowed to upload code\./);
      // Only the login gitlab-ci-token takes a job token.
      assert.notEqual((await clone(gitUrl(host, privateProject.full_path, { login: 'dev', password: JOB_TOKEN }))).code, 0);
    } finally {
      deps.jobTokens = original;
    }
  });

  test('wrong credentials: 401, the challenge and the platform text', async () => {
    for (const authorization of [basic('dev', 'wrong-password'), basic('x', 'glpat-unknown'), basic('oauth2', 'nope'), basic('gitlab-ci-token', 'glcbt-nope')]) {
      const res = await fetch(`${host}/${publicProject.full_path}.git/info/refs?service=git-upload-pack`, { headers: { authorization } });
      assert.equal(res.status, 401, authorization);
      assert.equal(res.headers.get('www-authenticate'), 'Basic realm="GitLab"');
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      assert.equal(await res.text(), ACCESS_DENIED);
    }
    const { code, stderr } = await clone(gitUrl(host, privateProject.full_path, { login: 'dev', password: 'wrong-password' }));
    assert.notEqual(code, 0);
    assert.match(stderr, /Authentication failed/);
  });

  test('a token without a repository scope may not fetch', async () => {
    const readUser = await t.user({ username: 'reader' }, ['read_user']);
    await addMember(t, privateProject, readUser.user.id, ACCESS.DEVELOPER);
    const { code, stderr } = await clone(gitUrl(host, privateProject.full_path, as(readUser)));
    assert.notEqual(code, 0);
    assert.match(stderr, /remote: You are not allowed to download code\./);
    const readRepository = await t.user({ username: 'repo-reader' }, ['read_repository']);
    await addMember(t, privateProject, readRepository.user.id, ACCESS.DEVELOPER);
    assert.equal((await clone(gitUrl(host, privateProject.full_path, as(readRepository)))).code, 0);
  });

  test('blocked users are refused like wrong credentials; two-factor users need a token', async () => {
    const blocked = await t.user({ username: 'blocked' });
    await addMember(t, privateProject, blocked.user.id, ACCESS.DEVELOPER);
    await t.deps.db.updateTable('users').set({ state: 'blocked' }).where('id', '=', blocked.user.id).execute();
    for (const authorization of [basic('blocked', blocked.token), basic('blocked', PASSWORD)]) {
      const res = await fetch(`${host}/${privateProject.full_path}.git/info/refs?service=git-upload-pack`, { headers: { authorization } });
      assert.equal(res.status, 401);
    }
    const secure = await t.user({ username: 'secure' });
    await addMember(t, privateProject, secure.user.id, ACCESS.DEVELOPER);
    await t.deps.db.updateTable('users').set({ two_factor_enabled: true }).where('id', '=', secure.user.id).execute();
    const res = await fetch(`${host}/${privateProject.full_path}.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic('secure', PASSWORD) } });
    assert.equal(res.status, 401);
    assert.equal(
      await res.text(),
      `HTTP Basic: Access denied\nYou must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP.\nYou can generate one at ${host}/-/profile/personal_access_tokens`,
    );
    assert.equal((await clone(gitUrl(host, privateProject.full_path, as(secure)))).code, 0);
  });
});

describe('protocols and commands', () => {
  test('clone over protocol v0 and v2', async () => {
    for (const version of ['0', '2']) {
      const { code, stderr, dir } = await clone(gitUrl(host, privateProject.full_path, as(developer)), ['-c', `protocol.version=${version}`]);
      assert.equal(code, 0, stderr);
      assert.equal((await git.ok(['rev-parse', 'HEAD'], dir)).trim(), (await git.ok(['ls-remote', gitUrl(host, privateProject.full_path, as(developer)), 'HEAD'])).split('\t')[0]);
    }
  });

  test('the advertisement of each protocol', async () => {
    const url = `${host}/${publicProject.full_path}.git/info/refs?service=git-upload-pack`;
    const v0 = await fetch(url);
    assert.equal(v0.status, 200);
    assert.equal(v0.headers.get('content-type'), 'application/x-git-upload-pack-advertisement');
    assert.equal(v0.headers.get('cache-control'), 'no-cache, max-age=0, must-revalidate');
    const v0Body = await v0.text();
    assert.ok(v0Body.startsWith('001e# service=git-upload-pack\n0000'), v0Body.slice(0, 40));
    assert.match(v0Body, new RegExp(`${mainId} HEAD\\0`));
    const v2 = await fetch(url, { headers: { 'git-protocol': 'version=2' } });
    assert.ok((await v2.text()).startsWith('000eversion 2\n'));
    // Anything but a version in Git-Protocol is ignored.
    const odd = await fetch(url, { headers: { 'git-protocol': '--upload-pack=touch /tmp/x:version=3' } });
    assert.ok((await odd.text()).startsWith('001e# service=git-upload-pack\n0000'));
  });

  test('ls-remote and fetch', async () => {
    const url = gitUrl(host, privateProject.full_path, as(developer));
    const listed = await git.ok(['-c', 'protocol.version=2', 'ls-remote', '--symref', url]);
    assert.match(listed, /^ref: refs\/heads\/main\tHEAD$/m);
    assert.match(listed, /\trefs\/heads\/main$/m);
    const first = await clone(url);
    const second = await clone(url);
    const pushed = await git.commit(second.dir, 'new.txt', 'new\n', 'A new file');
    await git.ok(['push', 'origin', 'main'], second.dir);
    for (const version of ['0', '2']) {
      await git.ok(['-c', `protocol.version=${version}`, 'fetch', 'origin'], first.dir);
      assert.equal((await git.ok(['rev-parse', 'origin/main'], first.dir)).trim(), pushed);
    }
  });

  test('a request body sent gzipped is read', async () => {
    const body = gzipSync(Buffer.from(`0032want ${mainId}\n00000009done\n`));
    const res = await fetch(`${host}/${publicProject.full_path}.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body,
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-git-upload-pack-result');
    const answer = Buffer.from(await res.arrayBuffer());
    assert.equal(answer.subarray(0, 8).toString(), '0008NAK\n');
    assert.ok(answer.includes(Buffer.from('PACK')));
  });

  test('without .git, info/refs redirects and clone follows', async () => {
    const res = await fetch(`${host}/${publicProject.full_path}/info/refs?service=git-upload-pack`, { redirect: 'manual' });
    assert.equal(res.status, 301);
    assert.equal(res.headers.get('location'), `/${publicProject.full_path}.git/info/refs?service=git-upload-pack`);
    const { code, stderr } = await clone(`${host}/${publicProject.full_path}`);
    assert.equal(code, 0, stderr);
    const rpc = await fetch(`${host}/${publicProject.full_path}/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-upload-pack-request' }, body: '0000' });
    assert.equal(rpc.status, 404);
  });

  test('HEAD of info/refs is refused; a missing service is not a command', async () => {
    const url = `${host}/${publicProject.full_path}.git/info/refs`;
    assert.equal((await fetch(`${url}?service=git-upload-pack`, { method: 'HEAD' })).status, 403);
    assert.equal((await fetch(url)).status, 401);
    const res = await fetch(url, { headers: { authorization: basic('dev', developer.token) } });
    assert.equal(res.status, 403);
    assert.equal(await res.text(), "The command you're trying to execute is not allowed.");
  });

  test('a wrong content type is refused', async () => {
    const res = await fetch(`${host}/${publicProject.full_path}.git/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '0000' });
    assert.equal(res.status, 415);
  });

  test('malformed pkt-lines and broken gzip get 4xx, and the server goes on', async () => {
    const post = (body: Buffer | string, headers: Record<string, string> = {}) =>
      fetch(`${host}/${publicProject.full_path}.git/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-upload-pack-request', ...headers }, body });
    for (const [body, headers] of [
      ['zzzz-not-a-pkt-line', {}],
      [`0032want ${'f'.repeat(40)}\n00000009done\n`, {}],
      [Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' }],
      ['0000', { 'content-encoding': 'br' }],
    ] as const) {
      const res = await post(body, headers);
      assert.ok(res.status >= 400 && res.status < 500 || (res.status === 200 && (await res.text()).includes('ERR')), `${res.status} for ${String(body).slice(0, 20)}`);
    }
    assert.equal((await clone(gitUrl(host, publicProject.full_path))).code, 0);
  });

  test('a fetch request larger than the body limit is refused', async () => {
    const big = Buffer.alloc(t.deps.config.bodyLimit + 1, 'a');
    const res = await fetch(`${host}/${publicProject.full_path}.git/git-upload-pack`, { method: 'POST', headers: { 'content-type': 'application/x-git-upload-pack-request' }, body: big });
    assert.equal(res.status, 413);
    // Chunked, so that no length announces it, and valid so that git goes on reading: cut while it streams.
    const haves = Buffer.from(`0032have ${'1'.repeat(40)}\n`.repeat(20_000));
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new Uint8Array(Buffer.from(`0032want ${mainId}\n0000`)));
        for (let i = 0; i < 12; i++) controller.enqueue(new Uint8Array(haves));
        controller.close();
      },
    });
    const chunked = await fetch(`${host}/${publicProject.full_path}.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-git-upload-pack-request' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 413);
    assert.equal((await fetch(`${host}/-/health`)).status, 200);
  });
});

describe('visibility', () => {
  test('anonymous: a public project clones; internal and private ask for credentials', async () => {
    assert.equal((await clone(gitUrl(host, publicProject.full_path))).code, 0);
    for (const project of [internalProject, privateProject]) {
      const res = await fetch(`${host}/${project.full_path}.git/info/refs?service=git-upload-pack`);
      assert.equal(res.status, 401, project.full_path);
      assert.equal(res.headers.get('www-authenticate'), 'Basic realm="GitLab"');
      assert.equal(await res.text(), ACCESS_DENIED);
      const { code, stderr } = await clone(gitUrl(host, project.full_path));
      assert.notEqual(code, 0);
      assert.match(stderr, /could not read Username|Authentication failed/);
    }
    // Pushing anonymously is never possible, nor is naming a project that does not exist.
    assert.equal((await fetch(`${host}/${publicProject.full_path}.git/info/refs?service=git-receive-pack`)).status, 401);
    assert.equal((await fetch(`${host}/${group.full_path}/nothing.git/info/refs?service=git-upload-pack`)).status, 401);
  });

  test('any signed-in user clones an internal project', async () => {
    assert.equal((await clone(gitUrl(host, internalProject.full_path, as(outsider)))).code, 0);
  });

  test('a private project is not found by non-members; a guest may not download', async () => {
    const res = await fetch(`${host}/${privateProject.full_path}.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic('outsider', outsider.token) } });
    assert.equal(res.status, 404);
    assert.equal(await res.text(), 'The project you were looking for could not be found.');
    const missing = await fetch(`${host}/${group.full_path}/nothing.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic('outsider', outsider.token) } });
    assert.equal(missing.status, 404);
    const { code, stderr } = await clone(gitUrl(host, privateProject.full_path, as(guest)));
    assert.notEqual(code, 0);
    assert.match(stderr, /remote: You are not allowed to download code from this project\./);
  });

  test('paths are matched without regard to case', async () => {
    const { code, stderr } = await clone(gitUrl(host, privateProject.full_path.toUpperCase(), as(developer)));
    assert.equal(code, 0, stderr);
  });
});
