// Snippets through the API and through git: personal and project snippets with one file (the
// legacy file_name/content) or several (`files`, with create/update/delete/move actions), the
// platform's refusals, the lists, raw content, the administrators' user agent detail; each
// snippet's own repository cloned over HTTP and pushed to by its author; storage moves of that
// repository; and snippets going with their project or their author.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type GitCli, gitCli, gitUrl } from '../../../test/git-cli.ts';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser } from '../../../test/harness.ts';
import { addMember, createProject, setInstanceSettings } from '../../../test/factories.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { snippetRepositoryDir } from '../../domain/snippet-repositories.ts';
import { repositoryExists } from '../../git/repository.ts';
import { SnippetStorageMoveEntity } from '../repository-storage-moves/repository-storage-moves.schemas.ts';
import { SnippetEntity, UserAgentDetailEntity } from './snippets.schemas.ts';

let t: TestApp;
let host: string;
let git: GitCli;
let author: TestUser;
let other: TestUser;
let project: ProjectRow;
let ssh: string;

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,other=other-repositories' }));
  git = gitCli();
  ssh = t.deps.config.sshUrlPrefix;
  author = await t.user({ username: 'scribe' });
  other = await t.user({ username: 'bystander' });
  project = await createProject(t, { path: 'notebook', visibility: 'public', members: [[author.user.id, ACCESS.REPORTER]] });
});
after(async () => {
  git.close();
  await t.close();
});

const authorBasic = () => ({ id: author.user.id, username: 'scribe', name: author.user.name, state: 'active', avatar_url: null, web_url: `${host}/scribe` });

async function createPersonal(body: Record<string, unknown>, token = author.token) {
  const res = await t.post('/api/v4/snippets', { token, body, headers: { 'user-agent': 'snippet-test/1.0' } });
  expectStatus(res, 201);
  expectEntity(res.json(), SnippetEntity);
  return res.json();
}

async function createInProject(body: Record<string, unknown>, token = author.token) {
  const res = await t.post(`/api/v4/projects/${project.id}/snippets`, { token, body: { visibility: 'public', ...body } });
  expectStatus(res, 201);
  expectEntity(res.json(), SnippetEntity);
  return res.json();
}

const snippetRow = (id: number) => t.deps.db.selectFrom('snippets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('personal snippets', () => {
  test('created from file_name and content: the whole entity, internal by default, its repository committed', async () => {
    const created = await createPersonal({ title: 'Hello', file_name: 'hello.rb', content: 'puts "hi"\n', description: 'greets' });
    const { id, created_at, updated_at } = created;
    assert.deepEqual(created, {
      id,
      title: 'Hello',
      description: 'greets',
      visibility: 'internal',
      updated_at,
      created_at,
      project_id: null,
      web_url: `${host}/-/snippets/${id}`,
      raw_url: `${host}/-/snippets/${id}/raw`,
      ssh_url_to_repo: `${ssh}snippets/${id}.git`,
      http_url_to_repo: `${host}/snippets/${id}.git`,
      author: authorBasic(),
      file_name: 'hello.rb',
      files: [{ path: 'hello.rb', raw_url: `${host}/-/snippets/${id}/raw/main/hello.rb` }],
    });
    const raw = await t.get(`/api/v4/snippets/${id}/raw`, { token: author.token });
    expectStatus(raw, 200);
    assert.equal(raw.body, 'puts "hi"\n');
    assert.match(String(raw.headers['content-type']), /^text\/plain/);
    const shown = await t.get(`/api/v4/snippets/${id}`, { token: other.token });
    expectStatus(shown, 200);
    assert.deepEqual(shown.json(), created);
    assert.ok(repositoryExists(snippetRepositoryDir(t.deps.config, await snippetRow(id))!));
  });

  test('several files: each raw at a ref, in git order; blank paths get names', async () => {
    const created = await createPersonal({ title: 'Multi', visibility: 'public', files: [{ file_path: 'b.txt', content: 'B' }, { file_path: 'dir/a.txt', content: 'A' }] });
    assert.deepEqual(created.files.map((f: { path: string }) => f.path), ['b.txt', 'dir/a.txt']);
    assert.equal(created.file_name, 'b.txt');
    const file = await t.get(`/api/v4/snippets/${created.id}/files/main/${encodeURIComponent('dir/a.txt')}/raw`);
    expectStatus(file, 200);
    assert.equal(file.body, 'A');
    expectError(await t.get(`/api/v4/snippets/${created.id}/files/nope/b.txt/raw`), 404, { message: '404 Reference Not Found' });
    expectError(await t.get(`/api/v4/snippets/${created.id}/files/main/missing.txt/raw`), 404, { message: '404 File Not Found' });
  });

  test('parameter refusals, as Grape words them', async () => {
    const before = await t.count('snippets');
    const post = (body: unknown) => t.post('/api/v4/snippets', { token: author.token, body });
    expectError(await post({}), 400, { error: 'title is missing, files, content are missing, exactly one parameter must be provided' });
    expectError(await post({ title: ' ', content: 'x', file_name: 'a' }), 400, { error: 'title is empty' });
    expectError(await post({ title: 't', content: 'x' }), 400, { error: 'file_name is missing' });
    expectError(await post({ title: 't', content: 'x', file_name: 'a', files: [{ file_path: 'b', content: 'y' }] }), 400, { error: 'files, content are mutually exclusive' });
    expectError(await post({ title: 't', content: 'x', file_name: 'a', visibility: 'secret' }), 400, { error: 'visibility does not have a valid value' });
    expectError(await post({ title: 't', content: 'x', file_name: '../up' }), 400, { error: 'file_path should be a valid file path' });
    expectError(await post({ title: 'x'.repeat(256), content: 'x', file_name: 'a' }), 400, { message: { error: 'Title is too long (maximum is 255 characters)' } });
    expectError(await post({ title: 't', files: [{ file_path: 'same', content: '1' }, { file_path: 'same', content: '2' }] }), 400, { message: { error: 'Repository Error creating the snippet' } });
    expectError(await t.post('/api/v4/snippets', { body: { title: 't', content: 'x', file_name: 'a' } }), 401, { message: '401 Unauthorized' });
    assert.equal(await t.count('snippets'), before);
  });

  test('a visibility the instance restricts: 403 for users, allowed to administrators', async () => {
    expectStatus(await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { restricted_visibility_levels: ['public'] } }), 200);
    try {
      expectError(await t.post('/api/v4/snippets', { token: author.token, body: { title: 't', content: 'x', file_name: 'a', visibility: 'public' } }), 403, {
        message: { error: 'Visibility level Public has been restricted by your GitLab administrator' },
      });
      expectStatus(await t.post('/api/v4/snippets', { token: ROOT_TOKEN, body: { title: 't', content: 'x', file_name: 'a', visibility: 'public' } }), 201);
    } finally {
      await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { restricted_visibility_levels: [] } });
    }
  });

  test('updates: attributes, the legacy file, and file actions; refusals', async () => {
    const single = await createPersonal({ title: 'One', file_name: 'one.txt', content: '1' });
    const url = `/api/v4/snippets/${single.id}`;
    const renamed = await t.put(url, { token: author.token, body: { title: 'Uno', file_name: 'uno.txt', content: 'uno', visibility: 'private' } });
    expectStatus(renamed, 200);
    expectEntity(renamed.json(), SnippetEntity);
    assert.deepEqual([renamed.json().title, renamed.json().visibility, renamed.json().file_name], ['Uno', 'private', 'uno.txt']);
    assert.equal((await t.get(`${url}/raw`, { token: author.token })).body, 'uno');

    const actions = await t.put(url, {
      token: author.token,
      body: {
        files: [
          { action: 'create', file_path: 'two.txt', content: '2' },
          { action: 'move', previous_path: 'uno.txt', file_path: 'eins.txt' },
        ],
      },
    });
    expectStatus(actions, 200);
    assert.deepEqual(actions.json().files.map((f: { path: string }) => f.path), ['eins.txt', 'two.txt']);
    assert.equal((await t.get(`${url}/files/main/eins.txt/raw`, { token: author.token })).body, 'uno');
    const updated = await t.put(url, { token: author.token, body: { files: [{ action: 'update', file_path: 'two.txt', content: 'zwei' }, { action: 'delete', file_path: 'eins.txt' }] } });
    expectStatus(updated, 200);
    assert.deepEqual(updated.json().files.map((f: { path: string }) => f.path), ['two.txt']);

    await t.put(url, { token: author.token, body: { files: [{ action: 'create', file_path: 'three.txt', content: '3' }] } });
    expectError(await t.put(url, { token: author.token, body: { content: 'x' } }), 400, { message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } });
    expectError(await t.put(url, { token: author.token, body: { files: [{ action: 'update', file_path: 'two.txt' }] } }), 422, { message: { error: 'Snippet actions have invalid data' } });
    expectError(await t.put(url, { token: author.token, body: { files: [{ action: 'rename', file_path: 'two.txt' }] } }), 400, { error: 'files[][action] does not have a valid value' });
    const before = (await t.get(url, { token: author.token })).json();
    expectError(await t.put(url, { token: author.token, body: { title: 'Not saved', files: [{ action: 'delete', file_path: 'missing.txt' }] } }), 400, { message: { error: 'Repository Error updating the snippet' } });
    // The refused commit comes before the row's change: neither happened.
    assert.deepEqual((await t.get(url, { token: author.token })).json(), before);
    expectError(await t.put(url, { token: author.token, body: { files: [{ action: 'delete', file_path: 'two.txt' }, { action: 'delete', file_path: 'three.txt' }] } }), 400, {
      message: { error: 'Repository Error updating the snippet' },
    });
    expectError(await t.put(url, { token: author.token, body: {} }), 400, { error: 'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided' });
    expectError(await t.put(url, { token: author.token, body: { files: [], content: 'x' } }), 400, { error: 'files, content are mutually exclusive' });
    // Another's snippet is not among the caller's own; a missing one is missing.
    expectError(await t.put(url, { token: other.token, body: { title: 'mine' } }), 404, { message: '404 Snippet Not Found' });
    expectError(await t.del(url, { token: other.token }), 404, { message: '404 Snippet Not Found' });
    expectError(await t.put('/api/v4/snippets/999999', { token: author.token, body: { title: 'x' } }), 404, { message: '404 Snippet Not Found' });
    expectError(await t.get('/api/v4/snippets/abc', { token: author.token }), 400, { error: 'id is invalid' });
  });

  test('who reads what: private to its author (and administrators), internal to users, public to anyone', async () => {
    const secret = await createPersonal({ title: 'Secret', file_name: 's', content: 's', visibility: 'private' });
    const internal = await createPersonal({ title: 'Internal', file_name: 'i', content: 'i', visibility: 'internal' });
    const open = await createPersonal({ title: 'Public', file_name: 'p', content: 'p', visibility: 'public' });
    const external = await t.user({ username: 'outsider', external: true });
    for (const [snippet, readers, strangers] of [
      [secret, [author.token, ROOT_TOKEN], [other.token, undefined]],
      [internal, [author.token, other.token], [external.token, undefined]],
      [open, [author.token, other.token, external.token, undefined], []],
    ] as const) {
      for (const token of readers) expectStatus(await t.get(`/api/v4/snippets/${snippet.id}`, { token }), 200);
      for (const token of strangers) {
        expectError(await t.get(`/api/v4/snippets/${snippet.id}`, { token }), 404, { message: '404 Snippet Not Found' });
        expectError(await t.get(`/api/v4/snippets/${snippet.id}/raw`, { token }), 404, { message: '404 Snippet Not Found' });
      }
    }
    expectError(await t.post('/api/v4/snippets', { token: external.token, body: { title: 't', content: 'x', file_name: 'a' } }), 403, { message: '403 Forbidden' });
  });

  test('lists: the caller\'s own, the public personal ones, all readable; newest first, paginated', async () => {
    const lister = await t.user({ username: 'lister' });
    const first = await createPersonal({ title: 'L1', file_name: 'a', content: 'a', visibility: 'private' }, lister.token);
    const second = await createPersonal({ title: 'L2', file_name: 'b', content: 'b', visibility: 'public' }, lister.token);
    const mine = await t.get('/api/v4/snippets', { token: lister.token });
    expectStatus(mine, 200);
    expectEntities(mine.json(), SnippetEntity);
    assert.deepEqual([mine.json().map((s: { id: number }) => s.id), mine.headers['x-total']], [[second.id, first.id], '2']);
    const paged = await t.get('/api/v4/snippets', { token: lister.token, query: { per_page: '1', page: '2' } });
    assert.deepEqual(paged.json().map((s: { id: number }) => s.id), [first.id]);
    const open = await t.get('/api/v4/snippets/public', { token: other.token, query: { per_page: '100' } });
    expectEntities(open.json(), SnippetEntity);
    assert.ok(open.json().every((s: { visibility: string; project_id: number | null }) => s.visibility === 'public' && s.project_id === null));
    assert.ok(open.json().some((s: { id: number }) => s.id === second.id));
    const all = await t.get('/api/v4/snippets/all', { token: other.token, query: { per_page: '100' } });
    expectEntities(all.json(), SnippetEntity);
    const ids = all.json().map((s: { id: number }) => s.id);
    assert.ok(ids.includes(second.id) && !ids.includes(first.id));
    const everything = await t.get('/api/v4/snippets/all', { token: ROOT_TOKEN, query: { per_page: '100' } });
    assert.ok(everything.json().some((s: { id: number }) => s.id === first.id));
    for (const list of ['/api/v4/snippets', '/api/v4/snippets/public', '/api/v4/snippets/all']) expectError(await t.get(list), 401, { message: '401 Unauthorized' });
  });

  test('user agent detail: administrators only', async () => {
    const created = await createPersonal({ title: 'UA', file_name: 'a', content: 'a' });
    const detail = await t.get(`/api/v4/snippets/${created.id}/user_agent_detail`, { token: ROOT_TOKEN });
    expectStatus(detail, 200);
    expectEntity(detail.json(), UserAgentDetailEntity);
    assert.deepEqual(detail.json(), { user_agent: 'snippet-test/1.0', ip_address: '127.0.0.1', akismet_submitted: false });
    expectError(await t.get(`/api/v4/snippets/${created.id}/user_agent_detail`, { token: author.token }), 403, { message: '403 Forbidden' });
    expectError(await t.get(`/api/v4/snippets/${created.id}/user_agent_detail`), 401, { message: '401 Unauthorized' });
    expectError(await t.get('/api/v4/snippets/999999/user_agent_detail', { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
  });

  test('delete: 204, then 404; the repository goes in the background', async () => {
    const created = await createPersonal({ title: 'Doomed', file_name: 'a', content: 'a' });
    const dir = snippetRepositoryDir(t.deps.config, await snippetRow(created.id))!;
    expectStatus(await t.del(`/api/v4/snippets/${created.id}`, { token: author.token }), 204);
    expectError(await t.get(`/api/v4/snippets/${created.id}`, { token: author.token }), 404, { message: '404 Snippet Not Found' });
    await t.runJobs();
    assert.equal(repositoryExists(dir), false);
  });
});

describe('project snippets', () => {
  const base = () => `/api/v4/projects/${project.id}/snippets`;

  test('create, list, show, update, delete with the project snippet entity', async () => {
    const created = await createInProject({ title: 'Setup', file_name: 'setup.sh', content: 'echo hi\n', visibility: 'internal' });
    const { id, created_at, updated_at } = created;
    const web = `${host}/${project.full_path}/-/snippets/${id}`;
    assert.deepEqual(created, {
      id,
      title: 'Setup',
      description: null,
      visibility: 'internal',
      updated_at,
      created_at,
      project_id: project.id,
      web_url: web,
      raw_url: `${web}/raw`,
      ssh_url_to_repo: `${ssh}${project.full_path}/snippets/${id}.git`,
      http_url_to_repo: `${host}/${project.full_path}/snippets/${id}.git`,
      author: authorBasic(),
      file_name: 'setup.sh',
      files: [{ path: 'setup.sh', raw_url: `${web}/raw/main/setup.sh` }],
    });
    const listed = await t.get(base(), { token: other.token });
    expectStatus(listed, 200);
    expectEntities(listed.json(), SnippetEntity);
    assert.ok(listed.json().some((s: { id: number }) => s.id === id));
    // Anonymous readers of the public project see its public snippets only.
    assert.ok(!(await t.get(base())).json().some((s: { id: number }) => s.id === id));
    const shown = await t.get(`${base()}/${id}`, { token: other.token });
    assert.deepEqual(shown.json(), created);
    assert.equal((await t.get(`${base()}/${id}/raw`, { token: other.token })).body, 'echo hi\n');
    assert.equal((await t.get(`${base()}/${id}/files/main/setup.sh/raw`, { token: other.token })).body, 'echo hi\n');
    // Through the personal routes too, as the platform's finder finds any readable snippet.
    assert.deepEqual((await t.get(`/api/v4/snippets/${id}`, { token: other.token })).json(), created);

    const updated = await t.put(`${base()}/${id}`, { token: author.token, body: { description: 'installs', files: [{ action: 'update', file_path: 'setup.sh', content: 'echo bye\n' }] } });
    expectStatus(updated, 200);
    expectEntity(updated.json(), SnippetEntity);
    assert.equal(updated.json().description, 'installs');
    assert.equal((await t.get(`${base()}/${id}/raw`, { token: other.token })).body, 'echo bye\n');
    expectStatus(await t.del(`${base()}/${id}`, { token: author.token }), 204);
    expectError(await t.get(`${base()}/${id}`, { token: author.token }), 404, { message: '404 Not found' });
    expectError(await t.del(`${base()}/${id}`, { token: author.token }), 404, { message: '404 Snippet Not Found' });
  });

  test('refusals: parameters, another project\'s snippet, a disabled feature, the roles', async () => {
    expectError(await t.post(base(), { token: author.token, body: { title: 't', file_name: 'a', content: 'a' } }), 400, { error: 'visibility is missing' });
    const elsewhere = await createProject(t, { visibility: 'public' });
    const created = await createInProject({ title: 'Here', file_name: 'a', content: 'a' });
    expectError(await t.get(`/api/v4/projects/${elsewhere.id}/snippets/${created.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.get(`/api/v4/projects/${elsewhere.id}/snippets/${created.id}/raw`, { token: ROOT_TOKEN }), 404, { message: '404 Snippet Not Found' });
    expectError(await t.get(`/api/v4/projects/999999/snippets`, { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
    // Reporters create; a non-member of a public project may read but not create, nor change another's snippet.
    expectError(await t.post(base(), { token: other.token, body: { title: 't', file_name: 'a', content: 'a', visibility: 'public' } }), 403, { message: '403 Forbidden' });
    expectError(await t.put(`${base()}/${created.id}`, { token: other.token, body: { title: 'x' } }), 403, { message: '403 Forbidden' });
    const maintainer = await t.user({ username: 'keeper' });
    await addMember(t, project, maintainer.user.id, ACCESS.MAINTAINER);
    expectStatus(await t.put(`${base()}/${created.id}`, { token: maintainer.token, body: { title: 'kept' } }), 200);
    const closed = await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { snippets_access_level: 'disabled' } });
    expectStatus(closed, 200);
    try {
      expectError(await t.get(base(), { token: ROOT_TOKEN }), 403, { message: '403 Forbidden' });
      expectError(await t.get(`/api/v4/snippets/${created.id}`, { token: other.token }), 404, { message: '404 Snippet Not Found' });
    } finally {
      await t.put(`/api/v4/projects/${project.id}`, { token: ROOT_TOKEN, body: { snippets_access_level: 'enabled' } });
    }
    const detail = await t.get(`${base()}/${created.id}/user_agent_detail`, { token: ROOT_TOKEN });
    expectStatus(detail, 200);
    expectEntity(detail.json(), UserAgentDetailEntity);
    expectError(await t.get(`${base()}/${created.id}/user_agent_detail`, { token: author.token }), 403, { message: '403 Forbidden' });
  });

  test('a deleted project takes its snippets and their repositories', async () => {
    const doomed = await createProject(t, { visibility: 'public', members: [[author.user.id, ACCESS.DEVELOPER]] });
    const res = await t.post(`/api/v4/projects/${doomed.id}/snippets`, { token: author.token, body: { title: 'Gone', file_name: 'a', content: 'a', visibility: 'public' } });
    expectStatus(res, 201);
    const dir = snippetRepositoryDir(t.deps.config, await snippetRow(res.json().id))!;
    expectStatus(await t.del(`/api/v4/projects/${doomed.id}`, { token: ROOT_TOKEN }), 202);
    assert.equal(await t.deps.db.selectFrom('snippets').select('id').where('id', '=', res.json().id).executeTakeFirst(), undefined);
    await t.runJobs();
    assert.equal(repositoryExists(dir), false);
  });

  test('a deleted user takes their snippets and their repositories', async () => {
    const leaver = await t.user({ username: 'leaver' });
    const own = await createPersonal({ title: 'Mine', file_name: 'a', content: 'a' }, leaver.token);
    const dir = snippetRepositoryDir(t.deps.config, await snippetRow(own.id))!;
    expectStatus(await t.del(`/api/v4/users/${leaver.user.id}`, { token: ROOT_TOKEN }), 204);
    assert.equal(await t.deps.db.selectFrom('snippets').select('id').where('author_id', '=', leaver.user.id).executeTakeFirst(), undefined);
    await t.runJobs();
    assert.equal(repositoryExists(dir), false);
  });
});

describe('git over HTTP', () => {
  const credentials = (user: TestUser) => ({ login: user.user.username, password: user.token });

  async function clone(url: string) {
    const dir = path.join(git.root, `clone-${Math.random().toString(16).slice(2)}`);
    return { ...(await git.run(['clone', '--quiet', url, dir])), dir };
  }

  test('a public snippet clones anonymously; its author pushes, others may not', async () => {
    const created = await createPersonal({ title: 'Cloned', visibility: 'public', files: [{ file_path: 'a.txt', content: 'A\n' }] });
    const anonymous = await clone(created.http_url_to_repo);
    assert.equal(anonymous.code, 0, anonymous.stderr);
    assert.equal(fs.readFileSync(path.join(anonymous.dir, 'a.txt'), 'utf8'), 'A\n');

    const mine = await clone(gitUrl(host, `snippets/${created.id}`, credentials(author)));
    assert.equal(mine.code, 0, mine.stderr);
    await git.commit(mine.dir, 'b.txt', 'B\n', 'Add b');
    const pushed = await git.run(['push', 'origin', 'HEAD:main'], mine.dir);
    assert.equal(pushed.code, 0, pushed.stderr);
    const shown = await t.get(`/api/v4/snippets/${created.id}`, { token: author.token });
    assert.deepEqual(shown.json().files.map((f: { path: string }) => f.path), ['a.txt', 'b.txt']);

    const theirs = await clone(gitUrl(host, `snippets/${created.id}`, credentials(other)));
    assert.equal(theirs.code, 0, theirs.stderr);
    await git.commit(theirs.dir, 'c.txt', 'C\n', 'Add c');
    const refused = await git.run(['push', 'origin', 'HEAD:main'], theirs.dir);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /You are not allowed to update this snippet\./);
  });

  test('a private project snippet: members clone it at the project\'s path, anonymous callers are asked to sign in', async () => {
    const created = await createInProject({ title: 'Private', visibility: 'private', file_name: 'p.txt', content: 'P\n' });
    assert.equal(created.http_url_to_repo, `${host}/${project.full_path}/snippets/${created.id}.git`);
    const member = await clone(gitUrl(host, `${project.full_path}/snippets/${created.id}`, credentials(author)));
    assert.equal(member.code, 0, member.stderr);
    assert.equal(fs.readFileSync(path.join(member.dir, 'p.txt'), 'utf8'), 'P\n');
    const info = (suffix: string, auth?: TestUser) =>
      fetch(`${host}/${suffix}.git/info/refs?service=git-upload-pack`, auth ? { headers: { authorization: `Basic ${Buffer.from(`${auth.user.username}:${auth.token}`).toString('base64')}` } } : {});
    assert.equal((await info(`${project.full_path}/snippets/${created.id}`)).status, 401);
    const stranger = await info(`${project.full_path}/snippets/${created.id}`, other);
    assert.deepEqual([stranger.status, await stranger.text()], [403, 'You are not allowed to read this snippet.']);
    const wrongPath = await info(`snippets/${created.id}`, author);
    assert.deepEqual([wrongPath.status, await wrongPath.text()], [404, 'The snippet you were looking for could not be found.']);
    const withPassword = await fetch(`${host}/${project.full_path}/snippets/${created.id}.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`scribe:${PASSWORD}`).toString('base64')}` },
    });
    assert.equal(withPassword.status, 200);
  });
});

describe('repository storage moves', () => {
  test('a snippet\'s repository moves to another storage and stays readable', async () => {
    const created = await createPersonal({ title: 'Mover', visibility: 'public', file_name: 'm.txt', content: 'moved\n' });
    const source = snippetRepositoryDir(t.deps.config, await snippetRow(created.id))!;
    const res = await t.post(`/api/v4/snippets/${created.id}/repository_storage_moves`, { token: ROOT_TOKEN, body: { destination_storage_name: 'other' } });
    expectStatus(res, 201);
    expectEntity(res.json(), SnippetStorageMoveEntity);
    assert.deepEqual([res.json().state, res.json().source_storage_name, res.json().destination_storage_name], ['scheduled', 'default', 'other']);
    assert.deepEqual(res.json().snippet, {
      id: created.id,
      title: 'Mover',
      description: null,
      visibility: 'public',
      updated_at: created.updated_at,
      created_at: created.created_at,
      project_id: null,
      web_url: created.web_url,
      raw_url: created.raw_url,
      ssh_url_to_repo: created.ssh_url_to_repo,
      http_url_to_repo: created.http_url_to_repo,
    });
    // Read-only meanwhile: file changes wait.
    expectError(await t.put(`/api/v4/snippets/${created.id}`, { token: author.token, body: { content: 'x' } }), 400, {
      message: { error: 'The repository is temporarily read-only. Please try again later.' },
    });
    expectError(await t.post(`/api/v4/snippets/${created.id}/repository_storage_moves`, { token: ROOT_TOKEN, body: {} }), 400, { message: { snippet: ['is read-only'] } });
    await t.runJobs();
    const row = await snippetRow(created.id);
    assert.deepEqual([row.repository_storage, row.repository_read_only], ['other', false]);
    assert.equal(repositoryExists(source), false);
    assert.ok(repositoryExists(snippetRepositoryDir(t.deps.config, row)!));
    assert.equal((await t.get(`/api/v4/snippets/${created.id}/raw`)).body, 'moved\n');
    const shown = await t.get(`/api/v4/snippet_repository_storage_moves/${res.json().id}`, { token: ROOT_TOKEN });
    expectEntity(shown.json(), SnippetStorageMoveEntity);
    assert.equal(shown.json().state, 'finished');
    const listed = await t.get(`/api/v4/snippets/${created.id}/repository_storage_moves`, { token: ROOT_TOKEN });
    expectEntities(listed.json(), SnippetStorageMoveEntity);
    assert.deepEqual(listed.json().map((m: { id: number }) => m.id), [res.json().id]);
    expectError(await t.get('/api/v4/snippets/999999/repository_storage_moves', { token: ROOT_TOKEN }), 404, { message: '404 Snippet Not Found' });
  });

  test('a bulk move schedules every snippet of the storage', async () => {
    const created = await createPersonal({ title: 'Bulk', file_name: 'b', content: 'b' });
    expectStatus(await t.post('/api/v4/snippet_repository_storage_moves', { token: ROOT_TOKEN, body: { source_storage_name: 'default', destination_storage_name: 'other' } }), 202);
    await t.runJobs();
    await t.runJobs();
    assert.equal((await snippetRow(created.id)).repository_storage, 'other');
    const all = await t.get('/api/v4/snippet_repository_storage_moves', { token: ROOT_TOKEN, query: { per_page: '100' } });
    expectEntities(all.json(), SnippetStorageMoveEntity);
    assert.ok(all.json().some((m: { snippet: { id: number }; state: string }) => m.snippet.id === created.id && m.state === 'finished'));
  });
});

describe('the snippet size limit', () => {
  const tooLong = (size: string, limit: string) => ({ message: { error: `Content is too long (${size}). The maximum size is ${limit}.` } });

  test('a content over snippet_size_limit is refused on create and update, in the model\'s words', async () => {
    await setInstanceSettings(t, { snippet_size_limit: 10 });
    try {
      expectError(await t.post('/api/v4/snippets', { token: author.token, body: { title: 'Big', file_name: 'big.txt', content: '12345678901' } }), 400, tooLong('11 Bytes', '10 Bytes'));
      // With `files`, the first file's content is the snippet's content.
      const files = [
        { file_path: 'a.txt', content: 'x'.repeat(2048) },
        { file_path: 'b.txt', content: 'y' },
      ];
      expectError(await t.post(`/api/v4/projects/${project.id}/snippets`, { token: author.token, body: { title: 'Big', visibility: 'public', files } }), 400, tooLong('2 KB', '10 Bytes'));
      // Characters are counted, not bytes.
      const fits = await createPersonal({ title: 'Fits', file_name: 'ok.txt', content: 'éééééééééé' });
      expectError(await t.put(`/api/v4/snippets/${fits.id}`, { token: author.token, body: { content: 'x'.repeat(1500) } }), 400, tooLong('1.46 KB', '10 Bytes'));
      expectError(await t.put(`/api/v4/snippets/${fits.id}`, { token: author.token, body: { files: [{ action: 'update', file_path: 'ok.txt', content: 'x'.repeat(11) }] } }), 400, tooLong('11 Bytes', '10 Bytes'));
      // What is refused leaves the snippet as it was; a change within the limit, or of no content, passes.
      assert.equal((await t.get(`/api/v4/snippets/${fits.id}/raw`, { token: author.token })).body, 'éééééééééé');
      expectStatus(await t.put(`/api/v4/snippets/${fits.id}`, { token: author.token, body: { title: 'Renamed' } }), 200);
      expectStatus(await t.put(`/api/v4/snippets/${fits.id}`, { token: author.token, body: { content: 'short' } }), 200);
      assert.equal((await t.get(`/api/v4/snippets/${fits.id}/raw`, { token: author.token })).body, 'short');
    } finally {
      await setInstanceSettings(t, { snippet_size_limit: 52428800 });
    }
  });

  test('a push to a snippet repository already over the limit is refused', async () => {
    const created = await createPersonal({ title: 'Pushed', visibility: 'public', files: [{ file_path: 'a.txt', content: 'A\n' }] });
    const dir = path.join(git.root, `clone-${Math.random().toString(16).slice(2)}`);
    const cloned = await git.run(['clone', '--quiet', gitUrl(host, `snippets/${created.id}`, { login: author.user.username, password: author.token }), dir]);
    assert.equal(cloned.code, 0, cloned.stderr);
    await git.commit(dir, 'b.txt', 'B\n', 'Add b');
    await setInstanceSettings(t, { snippet_size_limit: 1000 });
    try {
      const refused = await git.run(['push', 'origin', 'HEAD:main'], dir);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /Your push has been rejected, because this repository has exceeded its size limit of 1000 Bytes by [\d.]+ (Bytes|KB)\. Please contact your GitLab administrator for more information\./);
      // Reading is not limited.
      assert.equal((await git.run(['fetch', 'origin'], dir)).code, 0);
    } finally {
      await setInstanceSettings(t, { snippet_size_limit: 52428800 });
    }
    const pushed = await git.run(['push', 'origin', 'HEAD:main'], dir);
    assert.equal(pushed.code, 0, pushed.stderr);
  });
});
