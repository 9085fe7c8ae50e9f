// The repository as a whole through the API on a real repository: the tree (a directory, a path,
// everything below with recursive, refs, pagination) and archives (tar.gz read back entry by
// entry, with sha, path and the other formats), with the platform's refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectError, expectStatus } from '../../../test/matchers.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { resolveRef } from '../../git/refs.ts';
import { projectRepositoryPath } from '../../git/repository.ts';
import { TreeObjectEntity } from './repository.schemas.ts';

let t: TestApp;
let owner: TestUser;
let project: ProjectRow;
let dir: string;
let first: string;
let tip: string;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'olga' });
  const res = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Tree', path: 'tree-project', initialize_with_readme: true, visibility: 'public' } });
  expectStatus(res, 201);
  project = await t.deps.db.selectFrom('projects').selectAll().where('id', '=', res.json().id).executeTakeFirstOrThrow();
  dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
  first = (await resolveRef(dir, 'refs/heads/main')) as string;
  const made = await createCommit(dir, {
    branch: 'main',
    actions: [
      { action: 'create', path: 'src/app.js', content: 'console.log(1)\n' },
      { action: 'create', path: 'src/lib/util.js', content: 'export {}\n' },
      { action: 'create', path: 'bin/run', content: '#!/bin/sh\n', executable: true },
      { action: 'create', path: 'docs/ünï ☃.md', content: 'unicode\n' },
    ],
    message: 'Add files',
    author: { name: 'A', email: 'a@example.com' },
  });
  tip = made.id;
});
after(() => t.close());

const treeUrl = (p = project) => `/api/v4/projects/${p.id}/repository/tree`;
const tree = (query: Record<string, string> = {}) => t.get(treeUrl(), { query });
const paths = (res: LightMyRequestResponse) => (res.json() as { path: string }[]).map((e) => e.path);

describe('GET /projects/:id/repository/tree', () => {
  test('the root of the default branch: strict tree objects in git order', async () => {
    const res = await tree();
    expectStatus(res, 200);
    expectEntities(res.json(), TreeObjectEntity);
    assert.deepEqual(paths(res), ['README.md', 'bin', 'docs', 'src']);
    assert.deepEqual(res.json()[1], { id: res.json()[1].id, name: 'bin', type: 'tree', path: 'bin', mode: '040000' });
    assert.equal(res.json()[0].type, 'blob');
    assert.equal(res.json()[0].mode, '100644');
    assert.equal(res.headers['x-total'], '4');
  });

  test('path, recursive, ref; a path that is not a directory has no entries', async () => {
    assert.deepEqual(paths(await tree({ path: 'src' })), ['src/app.js', 'src/lib']);
    assert.deepEqual(paths(await tree({ path: 'src/' })), ['src/app.js', 'src/lib']);
    const bin = await tree({ path: 'bin' });
    assert.equal(bin.json()[0].mode, '100755');
    assert.deepEqual(paths(await tree({ path: 'docs' })), ['docs/ünï ☃.md']);
    assert.deepEqual(paths(await tree({ recursive: 'true' })), ['README.md', 'bin', 'bin/run', 'docs', 'docs/ünï ☃.md', 'src', 'src/app.js', 'src/lib', 'src/lib/util.js']);
    assert.deepEqual(paths(await tree({ path: 'src', recursive: 'true' })), ['src/app.js', 'src/lib', 'src/lib/util.js']);
    assert.deepEqual(paths(await tree({ ref: first })), ['README.md']);
    assert.deepEqual(paths(await tree({ path: 'nowhere' })), []);
    assert.deepEqual(paths(await tree({ path: 'README.md' })), []);
  });

  test('pagination: pages of per_page with the headers; keyset requests get offset pages', async () => {
    const res = await tree({ recursive: 'true', per_page: '4', page: '2' });
    assert.deepEqual(paths(res), ['docs/ünï ☃.md', 'src', 'src/app.js', 'src/lib']);
    assert.equal(res.headers['x-total'], '9');
    assert.equal(res.headers['x-total-pages'], '3');
    assert.equal(res.headers['x-next-page'], '3');
    assert.deepEqual(paths(await tree({ recursive: 'true', per_page: '4', page: '3' })), ['src/lib/util.js']);
    expectStatus(await tree({ pagination: 'keyset', per_page: '2' }), 200);
  });

  test('refusals: a ref that names no commit, paths that climb, an empty repository', async () => {
    expectError(await tree({ ref: 'nope' }), 404, { message: '404 Tree Not Found' });
    for (const path of ['../x', '/etc', 'a/../../b', '.git']) expectError(await tree({ path }), 400, { error: 'path should be a valid file path' });
    const empty = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Bare' } });
    expectError(await t.get(`/api/v4/projects/${empty.json().id}/repository/tree`, { token: owner.token }), 404, { message: '404 Tree Not Found' });
  });
});

/** The regular files of a tar archive: path → content (pax headers and directories left out). */
function untar(tar: Buffer): Map<string, string> {
  const files = new Map<string, string>();
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (start: number, length: number) => header.subarray(start, start + length).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(field(124, 12).trim(), 8);
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const type = field(156, 1);
    if (type === '0' || type === '') files.set(name, tar.subarray(at + 512, at + 512 + size).toString('utf8'));
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

test('a repository feature closed to the caller is "404 Repository Not Found" on every repository route', async () => {
  const member = await t.user({ username: 'guest-reader' });
  expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { repository_access_level: 'private' } }), 200);
  try {
    const refused = { message: '404 Repository Not Found' };
    for (const route of ['tree', 'archive', 'commits', 'commits/main', 'files/README.md?ref=main', 'files/README.md/raw']) {
      expectError(await t.get(`/api/v4/projects/${project.id}/repository/${route}`), 404, refused);
      expectError(await t.get(`/api/v4/projects/${project.id}/repository/${route}`, { token: member.token }), 404, refused);
      expectStatus(await t.get(`/api/v4/projects/${project.id}/repository/${route}`, { token: owner.token }), 200);
    }
    expectError(await t.post(`/api/v4/projects/${project.id}/repository/files/x.txt`, { token: member.token, body: { branch: 'main', commit_message: 'm', content: 'x' } }), 404, refused);
  } finally {
    expectStatus(await t.put(`/api/v4/projects/${project.id}`, { token: owner.token, body: { repository_access_level: 'enabled' } }), 200);
  }
});

describe('GET /projects/:id/repository/archive', () => {
  const archive = (suffix = '', query: Record<string, string> = {}) => t.get(`/api/v4/projects/${project.id}/repository/archive${suffix}`, { query });

  test('tar.gz of the default branch, entries under <project>-<ref>-<sha>/', async () => {
    const res = await archive();
    expectStatus(res, 200);
    const prefix = `tree-project-main-${tip}`;
    assert.equal(res.headers['content-type'], 'application/octet-stream');
    assert.equal(res.headers['content-disposition'], `attachment; filename="${prefix}.tar.gz"`);
    const files = untar(gunzipSync(res.rawPayload));
    assert.deepEqual([...files.keys()].sort(), [`${prefix}/README.md`, `${prefix}/bin/run`, `${prefix}/docs/ünï ☃.md`, `${prefix}/src/app.js`, `${prefix}/src/lib/util.js`]);
    assert.equal(files.get(`${prefix}/src/app.js`), 'console.log(1)\n');
    // The extension form names the same archive.
    const byExtension = await archive('.tar.gz');
    assert.equal(byExtension.headers['content-disposition'], res.headers['content-disposition']);
    assert.deepEqual([...untar(gunzipSync(byExtension.rawPayload)).keys()].sort(), [...files.keys()].sort());
  });

  test('sha and path choose what goes in', async () => {
    const old = await archive('', { sha: first });
    const oldPrefix = `tree-project-${first}-${first}`;
    assert.deepEqual([...untar(gunzipSync(old.rawPayload)).keys()], [`${oldPrefix}/README.md`]);
    const sub = await archive('', { path: 'src/lib' });
    const subPrefix = `tree-project-main-${tip}-src-lib`;
    assert.equal(sub.headers['content-disposition'], `attachment; filename="${subPrefix}.tar.gz"`);
    assert.deepEqual([...untar(gunzipSync(sub.rawPayload)).keys()], [`${subPrefix}/src/lib/util.js`]);
  });

  test('zip, tar and tar.bz2, by extension or format', async () => {
    const zip = await archive('.zip');
    assert.equal(zip.headers['content-type'], 'application/zip');
    assert.deepEqual(zip.rawPayload.subarray(0, 4), Buffer.from('PK\x03\x04', 'latin1'));
    assert.match(zip.headers['content-disposition'] as string, /\.zip"$/);
    const tar = await archive('', { format: 'tar' });
    assert.equal(untar(tar.rawPayload).size, 5);
    const bz2 = await archive('.tbz2');
    assert.equal(bz2.rawPayload.subarray(0, 3).toString(), 'BZh');
    assert.match(bz2.headers['content-disposition'] as string, /\.tar\.bz2"$/);
    // An unknown format falls back to tar.gz.
    assert.equal(gunzipSync((await archive('', { format: 'rar' })).rawPayload).length > 0, true);
  });

  test('HEAD answers the headers alone, and git is not left running', async () => {
    const res = await t.request('HEAD', `/api/v4/projects/${project.id}/repository/archive.zip`);
    expectStatus(res, 200);
    assert.equal(res.body, '');
    assert.equal(res.headers['content-type'], 'application/zip');
  });

  test('refusals: an unknown extension does not route; what names no commit or no path is a missing file', async () => {
    expectError(await archive('.exe'), 404, { error: '404 Not Found' });
    expectError(await archive('', { sha: 'nope' }), 404, { message: '404 File Not Found' });
    expectError(await archive('', { path: 'nowhere' }), 404, { message: '404 File Not Found' });
    expectError(await archive('', { path: '../..' }), 400, { error: 'path should be a valid file path' });
    const empty = await t.post('/api/v4/projects', { token: owner.token, body: { name: 'Void' } });
    expectError(await t.get(`/api/v4/projects/${empty.json().id}/repository/archive`, { token: owner.token }), 404, { message: '404 File Not Found' });
  });
});
