// Uploads through the API and back over HTTP: the entity (Markdown embedding images, linking the
// rest), the bytes served under the project's path to whoever reads the project, the instance's
// size limit (413, nothing kept), and the refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { multipart } from '../../../test/ci/ci-test-helpers.ts';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createGroup, createProject, setInstanceSettings } from '../../../test/factories.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { uploadsStorage } from '../../storage/file-storage.ts';
import { ProjectUploadEntity } from './uploads.schemas.ts';

let t: TestApp;
let member: TestUser;
let stranger: TestUser;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  member = await t.user({ username: 'uploader' });
  stranger = await t.user({ username: 'stranger' });
  const group = await createGroup(t, { path: 'docs' });
  project = await createProject(t, { path: 'site', namespace: group, members: [[member.user.id, ACCESS.GUEST]] });
});
after(() => t.close());

function upload(filename: string, content: Buffer | string, token: string | null = member.token, projectId = project.id) {
  const { body, contentType } = multipart({ filename, content: Buffer.from(content) });
  return t.post(`/api/v4/projects/${projectId}/uploads`, { token: token ?? undefined, headers: { 'content-type': contentType }, body });
}

describe('POST /projects/:id/uploads', () => {
  test('an image: embedded Markdown, served inline under the project path', async () => {
    const res = await upload('screen shot.png', 'PNG bytes');
    expectStatus(res, 201);
    expectEntity(res.json(), ProjectUploadEntity);
    const { url } = res.json();
    const secret = url.split('/')[2];
    assert.match(secret, /^[0-9a-f]{32}$/);
    assert.deepEqual(res.json(), {
      alt: 'screen_shot',
      url: `/uploads/${secret}/screen_shot.png`,
      full_path: `/docs/site/uploads/${secret}/screen_shot.png`,
      markdown: `![screen_shot](/uploads/${secret}/screen_shot.png)`,
    });
    const file = await t.get(res.json().full_path, { token: member.token });
    expectStatus(file, 200);
    assert.equal(file.body, 'PNG bytes');
    assert.equal(file.headers['content-type'], 'image/png');
    assert.match(String(file.headers['content-disposition']), /^inline; filename="screen_shot.png"/);
  });

  test('any other file: a link, served as an attachment', async () => {
    const res = await upload('notes [v2].txt', 'hello');
    expectStatus(res, 201);
    const secret = res.json().url.split('/')[2];
    assert.deepEqual(res.json(), {
      alt: 'notes__v2_.txt',
      url: `/uploads/${secret}/notes__v2_.txt`,
      full_path: `/docs/site/uploads/${secret}/notes__v2_.txt`,
      markdown: `[notes__v2_.txt](/uploads/${secret}/notes__v2_.txt)`,
    });
    const file = await t.get(res.json().full_path, { token: member.token });
    assert.deepEqual([file.statusCode, file.body, file.headers['content-type']], [200, 'hello', 'application/octet-stream']);
    assert.match(String(file.headers['content-disposition']), /^attachment;/);
  });

  test('beyond max_attachment_size: 413, and nothing is kept', async () => {
    await setInstanceSettings(t, { max_attachment_size: 1 });
    const count = await t.count('uploads');
    expectError(await upload('big.bin', Buffer.alloc(1024 * 1024 + 1)), 413, { message: '413 Request Entity Too Large' });
    assert.equal(await t.count('uploads'), count);
    expectStatus(await upload('exact.bin', Buffer.alloc(1024 * 1024)), 201);
    await setInstanceSettings(t, { max_attachment_size: 10 });
  });

  test('refusals: no file, another field, not multipart, who may not', async () => {
    const count = await t.count('uploads');
    const { body, contentType } = multipart(null, { note: 'x' });
    expectError(await t.post(`/api/v4/projects/${project.id}/uploads`, { token: member.token, headers: { 'content-type': contentType }, body }), 400, { error: 'file is missing' });
    expectError(await t.post(`/api/v4/projects/${project.id}/uploads`, { token: member.token, body: { file: 'text' } }), 400, { error: 'file is missing' });
    expectError(await upload('a.txt', 'x', null), 401, { message: '401 Unauthorized' });
    expectError(await upload('a.txt', 'x', stranger.token), 404, { message: '404 Project Not Found' });
    expectError(await upload('a.txt', 'x', member.token, 999999), 404, { message: '404 Project Not Found' });
    assert.equal(await t.count('uploads'), count);
  });

  test('a body cut off inside the file: 400 at once, nothing kept', async () => {
    const count = await t.count('uploads');
    const { body, contentType } = multipart({ filename: 'cut.txt', content: Buffer.from('hello world') });
    const cut = body.subarray(0, body.indexOf('hello world') + 5);
    expectError(await t.post(`/api/v4/projects/${project.id}/uploads`, { token: member.token, headers: { 'content-type': contentType }, body: cut }), 400, { message: '400 Bad request' });
    assert.equal(await t.count('uploads'), count);
  });
});

describe('GET /<project>/uploads/<secret>/<name>', () => {
  test('readers only: a stranger gets 404, an anonymous caller is sent to sign in; a public project is open', async () => {
    const res = await upload('secret.txt', 'classified');
    const path = res.json().full_path;
    const hidden = await t.get(path, { token: stranger.token });
    assert.equal(hidden.statusCode, 404);
    const anonymous = await t.get(path);
    assert.equal(anonymous.statusCode, 302);
    assert.equal(anonymous.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(path)}`);
    const open = await createProject(t, { visibility: 'public', members: [[member.user.id, ACCESS.GUEST]] });
    const shared = await upload('open.txt', 'for all', member.token, open.id);
    const read = await t.get(shared.json().full_path);
    assert.deepEqual([read.statusCode, read.body], [200, 'for all']);
  });

  test('unknown secrets, names and projects are 404; a file of one project is not another’s', async () => {
    const res = await upload('mine.txt', 'x');
    const secret = res.json().url.split('/')[2];
    for (const path of [`/docs/site/uploads/${'0'.repeat(32)}/mine.txt`, `/docs/site/uploads/${secret}/other.txt`, `/docs/site/uploads/nothex/mine.txt`, `/docs/nowhere/uploads/${secret}/mine.txt`]) {
      assert.equal((await t.get(path, { token: member.token })).statusCode, 404, path);
    }
    const elsewhere = await createProject(t, { path: 'elsewhere', members: [[member.user.id, ACCESS.GUEST]] });
    assert.equal((await t.get(`/${elsewhere.full_path}/uploads/${secret}/mine.txt`, { token: member.token })).statusCode, 404);
    // The bytes are in the uploads storage under the project's id, not its path.
    assert.equal(await uploadsStorage(t.deps.config).exists(`${project.id}/${secret}/mine.txt`), true);
  });
});

describe('a deleted project', () => {
  test('its uploads leave the storage with it', async () => {
    const doomed = await createProject(t, { path: 'doomed', members: [[member.user.id, ACCESS.GUEST]] });
    const res = await upload('gone.txt', 'bye', member.token, doomed.id);
    expectStatus(res, 201);
    const stored = `${doomed.id}/${res.json().url.split('/')[2]}/gone.txt`;
    assert.equal(await uploadsStorage(t.deps.config).exists(stored), true);
    expectStatus(await t.del(`/api/v4/projects/${doomed.id}`, { token: ROOT_TOKEN }), 202);
    await t.runJobs();
    assert.equal(await uploadsStorage(t.deps.config).exists(String(doomed.id)), false);
  });
});
