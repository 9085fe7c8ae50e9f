// Archives made to hurt: paths that climb out or start at the root, links of either kind, devices
// and FIFOs, names given twice, an entry cut short, gzip and tar bombs, a wrong VERSION, a missing
// tree, malformed JSON and ndjson, a bundle that does not verify. Each import fails with a clear
// import_error, nothing is written outside the import's scratch, and the project is left as it was
// created: no records, no branches.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { type RawEntry, importForm, platformArchive, tarGz } from '../../../test/fixtures/export-archives.ts';
import { ImportStatusEntity } from './import-export.schemas.ts';

let t: TestApp;
let scratch: string;
const outside = `quarry-evil-${randomBytes(6).toString('hex')}`;

before(async () => {
  // A small limit on what an archive may decompress to, so that a bomb is cheap to make here.
  t = await createTestApp({ QUARRY_IMPORT_MAX_DECOMPRESSED_SIZE: String(4 * 1024 * 1024) });
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-hostile-'));
  await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { project_import_limit: 0 } });
});
after(async () => {
  await t.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const minimal = (extra: RawEntry[] = []): RawEntry[] => [
  { name: 'VERSION', body: '0.2.4' },
  { name: 'tree/project.json', body: '{"description":"hostile"}' },
  { name: 'tree/project/labels.ndjson', body: '{"title":"should not land","color":"#000000"}\n' },
  ...extra,
];

/** Imports the archive, runs its job, and checks the import failed cleanly; answers the error. */
async function failedImport(archive: Buffer): Promise<string> {
  const form = importForm({ path: `hostile-${randomBytes(3).toString('hex')}` }, archive);
  const res = await t.post('/api/v4/projects/import', { token: ROOT_TOKEN, body: form.body, headers: form.headers });
  assert.equal(res.statusCode, 201, res.body);
  await t.runJobs();
  const status = await t.get(`/api/v4/projects/${res.json().id}/import`, { token: ROOT_TOKEN });
  expectEntity(status.json(), ImportStatusEntity);
  assert.equal(status.json().import_status, 'failed');
  const id = res.json().id;
  for (const list of ['labels', 'issues', 'merge_requests', 'milestones', 'repository/branches', 'badges', 'boards']) {
    const records = await t.get(`/api/v4/projects/${id}/${list}`, { token: ROOT_TOKEN });
    assert.deepEqual(records.json(), [], `${list} of a failed import`);
  }
  assert.equal((await t.get(`/api/v4/projects/${id}`, { token: ROOT_TOKEN })).json().import_error, status.json().import_error);
  // No upload of the archive either, recorded or on disk.
  assert.equal((await t.deps.db.selectFrom('uploads').select('id').where('project_id', '=', id).execute()).length, 0);
  assert.equal(fs.existsSync(path.join(t.deps.config.dataDir, 'uploads', String(id))), false);
  // Nothing escaped: no file of that name anywhere under the data directory, nor at the root's temporary directory.
  const found = fs.readdirSync(t.deps.config.dataDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.includes(outside));
  assert.deepEqual(found, []);
  assert.ok(!fs.existsSync(path.join('/tmp', outside)));
  // The scratch of the import is gone.
  const tmp = path.join(t.deps.config.dataDir, 'artifacts', 'tmp');
  assert.deepEqual(fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((f) => f.includes('-import-')) : [], []);
  return status.json().import_error as string;
}

const SECRET = 'a'.repeat(32);

describe('hostile archives fail cleanly', () => {
  test('uploads, badges and boards of an archive that fails late are not kept', async () => {
    const archive = tarGz(
      minimal([
        { name: `uploads/${SECRET}/note.txt`, body: 'should not land' },
        { name: 'tree/project/project_badges.ndjson', body: '{"link_url":"https://example.com","image_url":"https://example.com/b.svg"}\n' },
        { name: 'tree/project/boards.ndjson', body: '{"name":"fine","lists":[]}\n{"name": broken\n' },
      ]),
    );
    assert.equal(await failedImport(archive), 'Incorrect JSON format');
  });

  test('only uploads/<secret>/<file> is read of the uploads directory', async () => {
    const archive = tarGz([
      { name: 'VERSION', body: '0.2.4' },
      { name: 'tree/project.json', body: '{}' },
      { name: `uploads/${SECRET}/kept file.txt`, body: 'kept' },
      { name: `uploads/${SECRET}/nested/deeper.txt`, body: 'not read' },
      { name: 'uploads/not-a-secret/file.txt', body: 'not read' },
      { name: 'uploads/loose.txt', body: 'not read' },
    ]);
    const form = importForm({ path: `uploads-${randomBytes(3).toString('hex')}` }, archive);
    const res = await t.post('/api/v4/projects/import', { token: ROOT_TOKEN, body: form.body, headers: form.headers });
    assert.equal(res.statusCode, 201, res.body);
    await t.runJobs();
    const status = await t.get(`/api/v4/projects/${res.json().id}/import`, { token: ROOT_TOKEN });
    assert.equal(status.json().import_status, 'finished', status.json().import_error);
    const rows = await t.deps.db.selectFrom('uploads').select(['secret', 'filename', 'size']).where('project_id', '=', res.json().id).execute();
    assert.deepEqual(rows.map((r) => ({ ...r, size: Number(r.size) })), [{ secret: SECRET, filename: 'kept_file.txt', size: 4 }]);
    const file = await t.get(`/${res.json().path_with_namespace}/uploads/${SECRET}/kept_file.txt`, { token: ROOT_TOKEN });
    assert.equal(file.body, 'kept');
  });

  test('a path that climbs out with ..', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: `../../../../../../${outside}`, body: 'x' }]))), /leads outside the archive/);
  });

  test('an absolute path', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: `/tmp/${outside}`, body: 'x' }]))), /absolute path/);
  });

  test('a symbolic link, even one in place of tree/project.json', async () => {
    assert.match(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/project.json', type: '2', linkname: '/etc/passwd' }])), /symbolic link/);
    assert.match(await failedImport(tarGz(minimal([{ name: outside, type: '2', linkname: `/tmp/${outside}` }]))), /symbolic link/);
  });

  test('a hard link', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: outside, type: '1', linkname: '/etc/passwd' }]))), /hard link/);
  });

  test('devices and FIFOs', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: 'dev', type: '3' }]))), /device/);
    assert.match(await failedImport(tarGz(minimal([{ name: 'blk', type: '4' }]))), /device/);
    assert.match(await failedImport(tarGz(minimal([{ name: 'fifo', type: '6' }]))), /FIFO/);
  });

  test('a name given twice', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: 'VERSION', body: '0.2.4' }]))), /given twice/);
  });

  test('a gzip bomb: more than the limit once decompressed', async () => {
    const bomb = tarGz(minimal([{ name: 'zeros', body: Buffer.alloc(16 * 1024 * 1024, 0) }]));
    assert.ok(bomb.length < 100 * 1024, `the bomb is small compressed (${bomb.length} bytes)`);
    assert.equal(await failedImport(bomb), 'Decompressed archive size validation failed.');
  });

  test('a tar entry that declares far more than there is, and one cut short', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: 'huge', body: 'tiny', size: 1024 ** 4 }]), { end: false })), /Decompressed archive size validation failed|cut short|Invalid file/);
    assert.match(await failedImport(tarGz(minimal([{ name: 'short', body: 'x'.repeat(100), size: 5000 }]), { end: false })), /cut short|Invalid file/);
  });

  test('not gzip, and not tar', async () => {
    assert.match(await failedImport(Buffer.from('plain text')), /Unable to decompress the archive/);
    assert.match(await failedImport(gzipSync(Buffer.from('not a tar archive at all'.repeat(40)))), /Invalid file|Unable to decompress/);
  });

  test('a wrong or missing VERSION, and no tree', async () => {
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.1.8' }, { name: 'tree/project.json', body: '{}' }])), 'Import version mismatch: Required 0.2.4 but was 0.1.8');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: 'zero point two' }, { name: 'tree/project.json', body: '{}' }])), 'Incorrect VERSION format');
    assert.equal(await failedImport(tarGz([{ name: 'tree/project.json', body: '{}' }])), 'Incorrect VERSION format');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'project.json', body: '{}' }])), 'invalid import format');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/project/labels.ndjson', body: '' }])), 'Invalid file');
  });

  test('malformed JSON and ndjson: nothing of the archive lands', async () => {
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/project.json', body: '{"description": ' }])), 'Incorrect JSON format');
    const ndjson = minimal([{ name: 'tree/project/issues.ndjson', body: '{"title":"fine","iid":1}\n{"title": broken\n' }]);
    assert.equal(await failedImport(tarGz(ndjson)), 'Incorrect JSON format');
    assert.equal(await failedImport(tarGz(minimal([{ name: 'tree/project/milestones.ndjson', body: '[1, 2]\n' }]))), 'Incorrect JSON format');
  });

  test('a bundle that does not verify', async () => {
    const garbage = '# v2 git bundle\n0123456789012345678901234567890123456789 refs/heads/main\n\nPACK not really';
    assert.equal(await failedImport(tarGz(minimal([{ name: 'project.bundle', body: garbage }]))), 'The repository bundle failed verification');
    assert.equal(await failedImport(tarGz(minimal([{ name: 'project.bundle', body: 'not a bundle' }]))), 'The repository bundle failed verification');
  });

  test('the same checks pass a sound archive (control)', async () => {
    const archive = await platformArchive(scratch);
    const form = importForm({ path: 'sound' }, archive);
    const res = await t.post('/api/v4/projects/import', { token: ROOT_TOKEN, body: form.body, headers: form.headers });
    await t.runJobs();
    const status = await t.get(`/api/v4/projects/${res.json().id}/import`, { token: ROOT_TOKEN });
    assert.equal(status.json().import_status, 'finished', status.json().import_error);
  });
});
