// The generic package registry and the packages API: publishing (the body itself or a multipart
// part; by a user or a CI job's token), the plan's file size limit, downloads, the entities, the
// filters, deletion; and who may call each route on private, internal and public projects.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ACCESS } from '../../core/access/levels.ts';
import { type MatrixWorld, ROLE_LEVEL, buildMatrixWorld, expectation, refusals, runMatrix } from '../../../test/access-matrix.ts';
import { commitConfig, multipart, projectWithRepository, registerRunner, requestJob } from '../../../test/ci/ci-test-helpers.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { PackageDetailEntity, PackageEntity, PackageFileEntity } from './packages.schemas.ts';

let t: TestApp;
let world: MatrixWorld;
let owner: TestUser;
let project: { id: number; runnersToken: string };

before(async () => {
  t = await createTestApp();
  world = await buildMatrixWorld(t);
  owner = await t.user();
  project = await projectWithRepository(t, owner);
});
after(() => t.close());

const fileUrl = (projectId: number, name: string, version: string, file: string) => `/api/v4/projects/${projectId}/packages/generic/${name}/${version}/${file}`;
const octets = { 'content-type': 'application/octet-stream' };
const upload = (url: string, content: Buffer | string, token: string | undefined, query: Record<string, string> = {}) =>
  t.put(url, { token, headers: octets, body: Buffer.from(content), query });
const setLimit = (bytes: number) => t.put('/api/v4/application/plan_limits', { token: ROOT_TOKEN, body: { plan_name: 'default', generic_packages_max_file_size: bytes } });
const sha = (algorithm: string, data: Buffer | string) => createHash(algorithm).update(data).digest('hex');

describe('publishing and downloading', () => {
  test('PUT the body: 201 Created; GET returns the same bytes', async () => {
    const content = randomBytes(3000);
    const res = await upload(fileUrl(project.id, 'my-tool', '1.2.3', 'tool.bin'), content, owner.token);
    expectStatus(res, 201);
    assert.deepEqual(res.json(), { message: '201 Created' });
    const got = await t.get(fileUrl(project.id, 'my-tool', '1.2.3', 'tool.bin'), { token: owner.token });
    expectStatus(got, 200);
    assert.deepEqual(got.rawPayload, content);
    assert.equal(got.headers['content-type'], 'application/octet-stream');
    assert.match(String(got.headers['content-disposition']), /attachment; filename="tool.bin"/);
    expectError(await t.get(fileUrl(project.id, 'my-tool', '1.2.3', 'other.bin'), { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(fileUrl(project.id, 'my-tool', '9.9.9', 'tool.bin'), { token: owner.token }), 404, { message: '404 Not found' });
  });

  test('a multipart file part; select=package_file answers the file; a name published again serves its newest', async () => {
    const { body, contentType } = multipart({ filename: 'x.txt', content: Buffer.from('first') });
    expectStatus(await t.put(fileUrl(project.id, 'my-tool', '1.2.3', 'notes.txt'), { token: owner.token, headers: { 'content-type': contentType }, body }), 201);
    const again = await upload(fileUrl(project.id, 'my-tool', '1.2.3', 'notes.txt'), 'second', owner.token, { select: 'package_file' });
    expectStatus(again, 201);
    expectEntity(again.json(), PackageFileEntity);
    assert.deepEqual({ ...(again.json() as object), id: 0, package_id: 0, created_at: '' }, {
      id: 0,
      package_id: 0,
      created_at: '',
      file_name: 'notes.txt',
      size: 6,
      file_md5: sha('md5', 'second'),
      file_sha1: sha('sha1', 'second'),
      file_sha256: sha('sha256', 'second'),
    });
    assert.equal((await t.get(fileUrl(project.id, 'my-tool', '1.2.3', 'notes.txt'), { token: owner.token })).body, 'second');
  });

  test('names and versions as the platform allows them (14.x: versions X.Y.Z)', async () => {
    expectError(await upload(fileUrl(project.id, 'my-tool', 'latest', 'a.bin'), 'x', owner.token), 400, { error: 'package_version is invalid' });
    expectError(await upload(fileUrl(project.id, 'my%20tool', '1.0.0', 'a.bin'), 'x', owner.token), 400, { error: 'package_name is invalid' });
    expectError(await upload(fileUrl(project.id, 'tool', '1.0.0', '%C3%A9t%C3%A9.bin'), 'x', owner.token), 400, { error: 'file_name is invalid' });
    expectError(await upload(fileUrl(project.id, 'tool', '1.0.0', 'a.bin'), 'x', owner.token, { status: 'gone' }), 400, { error: 'status does not have a valid value' });
  });

  test('the plan’s generic_packages_max_file_size: larger files are 400 File is too large, nothing kept', async () => {
    expectStatus(await setLimit(10), 200);
    try {
      const before = await t.count('package_files');
      expectError(await upload(fileUrl(project.id, 'big', '1.0.0', 'big.bin'), 'x'.repeat(11), owner.token), 400, { message: '400 Bad request - File is too large' });
      // Without a declared length, the body is cut off as it grows past the limit.
      const streamed = await t.app.inject({
        method: 'PUT',
        url: fileUrl(project.id, 'big', '1.0.0', 'big.bin'),
        headers: { 'private-token': owner.token, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
        payload: Readable.from([Buffer.from('x'.repeat(6)), Buffer.from('x'.repeat(6))]),
      });
      expectError(streamed, 400, { message: '400 Bad request - File is too large' });
      const { body, contentType } = multipart({ filename: 'big.bin', content: Buffer.from('x'.repeat(11)) });
      expectError(await t.put(fileUrl(project.id, 'big', '1.0.0', 'big.bin'), { token: owner.token, headers: { 'content-type': contentType }, body }), 400, {
        message: '400 Bad request - File is too large',
      });
      assert.equal(await t.count('package_files'), before);
      expectStatus(await upload(fileUrl(project.id, 'big', '1.0.0', 'small.bin'), 'x'.repeat(10), owner.token), 201);
      // Another plan's limit does not apply.
      await t.put('/api/v4/application/plan_limits', { token: ROOT_TOKEN, body: { plan_name: 'ultimate', generic_packages_max_file_size: 1 } });
      expectStatus(await upload(fileUrl(project.id, 'big', '1.0.0', 'other.bin'), 'x'.repeat(5), owner.token), 201);
      // 0: no limit.
      expectStatus(await setLimit(0), 200);
      expectStatus(await upload(fileUrl(project.id, 'big', '1.0.0', 'huge.bin'), randomBytes(64 * 1024), owner.token), 201);
    } finally {
      await setLimit(5368709120);
    }
  });

  test('a CI job publishes with its token; the package shows the job’s pipeline', async () => {
    await commitConfig(t, owner, project.id, 'publish:\n  script: [echo]\n');
    const runner = await registerRunner(t, project.runnersToken);
    const job = (await requestJob(t, runner)).json();
    const res = await t.put(fileUrl(project.id, 'from-ci', '0.0.1', 'out.bin'), { headers: { ...octets, 'job-token': job.token }, body: Buffer.from('built') });
    expectStatus(res, 201);
    const [pkg] = (await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { package_name: 'from-ci' } })).json();
    expectEntity(pkg, PackageEntity);
    const { pipeline_id } = await t.deps.db.selectFrom('ci_builds').select('pipeline_id').where('id', '=', job.id).executeTakeFirstOrThrow();
    assert.equal(pkg.pipeline.id, pipeline_id);
    assert.equal(pkg.pipeline.user.id, owner.user.id);
    assert.deepEqual(pkg.pipelines.map((p: { id: number }) => p.id), [pipeline_id]);
    expectError(await t.put(fileUrl(project.id, 'from-ci', '0.0.1', 'out.bin'), { headers: { ...octets, 'job-token': 'not-a-job-token' }, body: Buffer.from('x') }), 401, {
      message: '401 Unauthorized',
    });
  });
});

describe('the packages API', () => {
  test('list: the entity, filters, order, pagination', async () => {
    const res = await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { order_by: 'name', sort: 'asc' } });
    expectStatus(res, 200);
    expectEntities(res.json(), PackageEntity);
    const names = res.json().map((p: { name: string }) => p.name);
    assert.deepEqual(names, [...names].sort());
    const tool = res.json().find((p: { name: string }) => p.name === 'my-tool');
    assert.deepEqual(tool._links, { web_path: `/${tool._links.web_path.slice(1)}`, delete_api_path: `http://quarry.test/api/v4/projects/${project.id}/packages/${tool.id}` });
    assert.match(tool._links.web_path, new RegExp(`/-/packages/${tool.id}$`));
    assert.deepEqual([tool.version, tool.package_type, tool.status, tool.tags], ['1.2.3', 'generic', 'default', []]);
    assert.equal('pipeline' in tool, false);
    assert.deepEqual((await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { package_type: 'npm' } })).json(), []);
    const paged = await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { per_page: '1' } });
    assert.equal(paged.json().length, 1);
    assert.equal(paged.headers['x-total'], String(res.json().length));
    expectError(await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { order_by: 'size' } }), 400, { error: 'order_by does not have a valid value' });
    // Hidden packages are listed only when asked for.
    expectStatus(await upload(fileUrl(project.id, 'secret', '1.0.0', 'a.bin'), 'a', owner.token, { status: 'hidden' }), 201);
    const listed = (await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { per_page: '100' } })).json();
    assert.equal(listed.some((p: { name: string }) => p.name === 'secret'), false);
    const hidden = (await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { status: 'hidden' } })).json();
    assert.deepEqual(hidden.map((p: { name: string }) => p.name), ['secret']);
  });

  test('one package with its other versions; its files; unknown ones 404', async () => {
    expectStatus(await upload(fileUrl(project.id, 'my-tool', '2.0.0', 'tool.bin'), 'v2', owner.token), 201);
    const list = (await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { package_name: 'my-tool', order_by: 'version' } })).json();
    const [v1, v2] = list;
    const res = await t.get(`/api/v4/projects/${project.id}/packages/${v1.id}`, { token: owner.token });
    expectStatus(res, 200);
    expectEntity(res.json(), PackageDetailEntity);
    assert.deepEqual(res.json().versions.map((v: { id: number; version: string }) => [v.id, v.version]), [[v2.id, '2.0.0']]);
    const files = await t.get(`/api/v4/projects/${project.id}/packages/${v1.id}/package_files`, { token: owner.token });
    expectStatus(files, 200);
    expectEntities(files.json(), PackageFileEntity);
    assert.deepEqual(files.json().map((f: { file_name: string }) => f.file_name), ['tool.bin', 'notes.txt', 'notes.txt']);
    expectError(await t.get(`/api/v4/projects/${project.id}/packages/999999`, { token: owner.token }), 404, { message: '404 Not found' });
    expectError(await t.get(`/api/v4/projects/${project.id}/packages/999999/package_files`, { token: owner.token }), 404, { message: '404 Not found' });
  });

  test('delete a file, then the package; their files go in the background', async () => {
    const [pkg] = (await t.get(`/api/v4/projects/${project.id}/packages`, { token: owner.token, query: { package_name: 'big' } })).json();
    const [file] = (await t.get(`/api/v4/projects/${project.id}/packages/${pkg.id}/package_files`, { token: owner.token })).json();
    expectStatus(await t.del(`/api/v4/projects/${project.id}/packages/${pkg.id}/package_files/${file.id}`, { token: owner.token }), 204);
    expectError(await t.del(`/api/v4/projects/${project.id}/packages/${pkg.id}/package_files/${file.id}`, { token: owner.token }), 404, { message: '404 Not found' });
    expectStatus(await t.del(`/api/v4/projects/${project.id}/packages/${pkg.id}`, { token: owner.token }), 204);
    expectError(await t.get(`/api/v4/projects/${project.id}/packages/${pkg.id}`, { token: owner.token }), 404, { message: '404 Not found' });
    assert.deepEqual((await t.runJobs()).filter((o) => o.kind === 'storage.files.remove').map((o) => o.ok), [true, true]);
    expectError(await t.get(fileUrl(project.id, 'big', '1.0.0', 'small.bin'), { token: owner.token }), 404, { message: '404 Not found' });
  });
});

describe('who may call', () => {
  /** Reporters read; so does every reader of a public project, and of an internal one when signed in. */
  const readers = (role: (typeof import('../../../test/access-matrix.ts').ROLES)[number], visibility: 'private' | 'internal' | 'public') => {
    const base = expectation({ auth: 'optional', success: 200 })(role, visibility);
    if (base !== 200 || role === 'admin' || visibility !== 'private') return base;
    return ROLE_LEVEL[role] >= ACCESS.REPORTER ? 200 : 403;
  };
  let sequence = 0;
  const published = new Map<number, number>();

  before(async () => {
    for (const p of Object.values(world.projects)) {
      expectStatus(await upload(fileUrl(p.id, 'matrix', '1.0.0', 'a.bin'), 'a', ROOT_TOKEN), 201);
      published.set(p.id, (await t.get(`/api/v4/projects/${p.id}/packages`, { token: ROOT_TOKEN })).json()[0].id);
    }
  });

  test('PUT a generic file: developers and up', async () => {
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 201, minLevel: ACCESS.DEVELOPER }),
      errors: refusals('Project'),
      call: (c) => upload(fileUrl(c.project.id, 'matrix', '1.0.0', `f${++sequence}.bin`), 'x', c.caller.token),
    });
  });

  test('GET a generic file, the list, one package, its files: reporters, and readers of public projects', async () => {
    const routes = [(id: number) => fileUrl(id, 'matrix', '1.0.0', 'a.bin'), (id: number) => `/api/v4/projects/${id}/packages`, (id: number) => `/api/v4/projects/${id}/packages/${published.get(id)}`, (id: number) => `/api/v4/projects/${id}/packages/${published.get(id)}/package_files`];
    for (const route of routes) {
      await runMatrix(world, { expect: readers, errors: refusals('Project'), call: (c) => t.get(route(c.project.id), { token: c.caller.token }) });
    }
  });

  test('DELETE a package: maintainers and up; the delete path shows to them only', async () => {
    await runMatrix(world, {
      expect: expectation({ auth: 'required', success: 204, minLevel: ACCESS.MAINTAINER }),
      errors: refusals('Project'),
      call: async (c) => {
        expectStatus(await upload(fileUrl(c.project.id, 'doomed', '1.0.0', `d${++sequence}.bin`), 'x', ROOT_TOKEN), 201);
        const [pkg] = (await t.get(`/api/v4/projects/${c.project.id}/packages`, { token: ROOT_TOKEN, query: { package_name: 'doomed' } })).json();
        return t.del(`/api/v4/projects/${c.project.id}/packages/${pkg.id}`, { token: c.caller.token });
      },
    });
    const asReporter = (await t.get(`/api/v4/projects/${world.projects.private.id}/packages`, { token: world.callers.reporter.token })).json();
    assert.equal('delete_api_path' in asReporter[0]._links, false);
  });
});
