// The bundled server (src/bundle): built from the sources, it serves what they serve, including
// what finds files through import.meta (the pre-receive hook, templates, package.json, the API
// page's assets) and the schema image of a new database; and it is used only while every source
// it was built from is unchanged.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { BUNDLE_FORMAT, BUNDLE_HEAD, type Manifest, codeCacheFile, currentBundle } from '../src/bundle/current.js';
import { BranchEntity } from '../src/modules/branches/branches.schemas.ts';
import { NamespaceEntity } from '../src/modules/namespaces/namespaces.schemas.ts';
import { ProjectEntity } from '../src/modules/projects/projects.schemas.ts';
import { TemplateEntity } from '../src/modules/templates/templates.schemas.ts';
import { UserAdminEntity } from '../src/modules/users/users.schemas.ts';
import { PRODUCT_REVISION, REPORTED_VERSION } from '../src/version.ts';
import { expectEntities, expectEntity } from './matchers.ts';
import { gitCli, gitUrl } from './git-cli.ts';
import { MAIN } from './server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('the bundled server', () => {
  let server: ChildProcess;
  let url: string;
  let token: string;
  let bundleFile: string;
  const git = gitCli();

  before(async () => {
    const build = spawnSync(process.execPath, [path.join(ROOT, 'src/bundle/build.ts')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    const bundle = currentBundle();
    assert.ok(bundle, 'the build leaves a current bundle');
    const env: Record<string, string> = { ...(process.env as Record<string, string>), PORT: '0', QUARRY_SSH_PORT: '0', QUARRY_BUILTIN_RUNNER: '0' };
    delete env.DATABASE_URL;
    bundleFile = bundle;
    fs.rmSync(codeCacheFile(bundle), { force: true });
    server = spawn(process.execPath, [MAIN, 'serve', '--ephemeral'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    for await (const line of createInterface({ input: server.stdout! })) {
      const event = JSON.parse(line);
      if (event.msg === 'ready') {
        ({ url, token } = event);
        break;
      }
    }
    server.stdout!.resume();
    assert.ok(url, 'the bundled server said it is ready');
  });

  after(async () => {
    git.close();
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
  });

  const api = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v4${route}`, { method, headers: { 'PRIVATE-TOKEN': token, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, body: (await res.json()) as any };
  };

  test('reports the version of package.json', async () => {
    const version = await api('GET', '/version');
    assert.equal(version.status, 200);
    assert.deepEqual(version.body, { version: REPORTED_VERSION, revision: PRODUCT_REVISION, kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null }, enterprise: false });
  });

  test('serves templates from the sources and the API page from its package', async () => {
    for (const route of ['/templates/dockerfiles/Binary', '/templates/gitignores/Node']) {
      const template = await api('GET', route);
      assert.equal(template.status, 200, route);
      expectEntity(template.body, TemplateEntity);
      assert.ok(template.body.content.length > 0, route);
    }
    const page = await fetch(`${url}/-/api-docs/swagger-ui.css`);
    assert.equal(page.status, 200);
  });

  test('a new database has the schema of the migrations: users, search, projects', async () => {
    const user = await api('POST', '/users', { username: 'bundled', email: 'bundled@example.com', name: 'Bundled User', password: 'a-long-password-1' });
    assert.equal(user.status, 201);
    expectEntity(user.body, UserAdminEntity);
    const found = await api('GET', '/namespaces?search=bundled');
    expectEntities(found.body, NamespaceEntity);
    assert.deepEqual(found.body.map((n: { path: string }) => n.path), ['bundled']);
  });

  test("routes match with the bundle's router closures: static prefixes, four parameters", async () => {
    const project = await api('POST', '/projects', { name: 'packaged' });
    assert.equal(project.status, 201);
    const file = `${url}/api/v4/projects/${project.body.id}/packages/generic/tool/1.2.3/tool.tar.gz`;
    const upload = await fetch(file, { method: 'PUT', headers: { 'PRIVATE-TOKEN': token }, body: 'the bytes' });
    assert.equal(upload.status, 201);
    assert.deepEqual(await upload.json(), { message: '201 Created' });
    const download = await fetch(file, { headers: { 'PRIVATE-TOKEN': token } });
    assert.equal(download.status, 200);
    assert.equal(await download.text(), 'the bytes');
    // A path that shares all but the last character of a static part matches nothing.
    const near = await fetch(`${url}/api/v4/projectz`, { headers: { 'PRIVATE-TOKEN': token } });
    assert.equal(near.status, 404);
    assert.deepEqual(await near.json(), { error: '404 Not Found' });
  });

  test('the bundle is one function expression, of ASCII only', () => {
    const bytes = fs.readFileSync(bundleFile);
    assert.equal(bytes.subarray(0, BUNDLE_HEAD.length).toString('latin1'), BUNDLE_HEAD);
    assert.equal(bytes.findIndex((byte) => byte > 0x7f), -1);
  });

  test('a push runs the pre-receive hook and lands', async () => {
    const project = await api('POST', '/projects', { name: 'hooked', initialize_with_readme: true });
    assert.equal(project.status, 201);
    expectEntity(project.body, ProjectEntity);
    const work = path.join(git.root, 'hooked');
    await git.ok(['clone', '-q', gitUrl(url, 'root/hooked', { login: 'root', password: token }), work]);
    const sha = await git.commit(work, 'pushed.txt', 'through the bundle\n', 'Pushed');
    await git.ok(['push', '-q', 'origin', 'HEAD:main'], work);
    const branch = await api('GET', `/projects/${project.body.id}/repository/branches/main`);
    expectEntity(branch.body, BranchEntity);
    assert.equal(branch.body.commit.id, sha);
    // The hook refuses what it must: a push to a protected branch by no one allowed.
    const refused = await git.run(['push', '-q', 'origin', ':main'], work);
    assert.notEqual(refused.code, 0);
  });

  test('the server ran from the bundle, which left its code cache for the next start', async () => {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
    assert.ok(fs.statSync(codeCacheFile(bundleFile)).size > 1_000_000);
  });
});

describe('which bundle is current', () => {
  let root: string;
  let cache: string;
  const write = (manifest: Manifest) => fs.writeFileSync(path.join(cache, 'manifest.json'), JSON.stringify(manifest));
  const stamp = (file: string): [number, number] => {
    const stat = fs.statSync(path.join(root, file));
    return [stat.size, stat.mtimeMs];
  };

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bundle-test-'));
    cache = path.join(root, 'cache');
    fs.mkdirSync(cache);
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src/a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(cache, 'server-1.mjs'), '');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('the bundle of unchanged sources is current', () => {
    write({ format: BUNDLE_FORMAT, bundle: 'server-1.mjs', inputs: { 'src/a.ts': stamp('src/a.ts') } });
    assert.equal(currentBundle(cache, root), path.join(cache, 'server-1.mjs'));
  });

  test('a changed, touched or removed source, a missing bundle or manifest, an earlier format: none is', () => {
    write({ format: BUNDLE_FORMAT, bundle: 'server-1.mjs', inputs: { 'src/a.ts': stamp('src/a.ts') } });
    const [size, mtimeMs] = stamp('src/a.ts');
    write({ format: BUNDLE_FORMAT, bundle: 'server-1.mjs', inputs: { 'src/a.ts': [size + 1, mtimeMs] } });
    assert.equal(currentBundle(cache, root), null);
    write({ format: BUNDLE_FORMAT, bundle: 'server-1.mjs', inputs: { 'src/a.ts': [size, mtimeMs - 1000] } });
    assert.equal(currentBundle(cache, root), null);
    write({ format: BUNDLE_FORMAT, bundle: 'server-1.mjs', inputs: { 'src/gone.ts': [1, 1] } });
    assert.equal(currentBundle(cache, root), null);
    write({ format: BUNDLE_FORMAT, bundle: 'server-2.mjs', inputs: { 'src/a.ts': [size, mtimeMs] } });
    assert.equal(currentBundle(cache, root), null);
    write({ format: BUNDLE_FORMAT - 1, bundle: 'server-1.mjs', inputs: { 'src/a.ts': [size, mtimeMs] } });
    assert.equal(currentBundle(cache, root), null);
    fs.writeFileSync(path.join(cache, 'manifest.json'), '{"bundle":');
    assert.equal(currentBundle(cache, root), null);
    fs.rmSync(path.join(cache, 'manifest.json'));
    assert.equal(currentBundle(cache, root), null);
  });
});
