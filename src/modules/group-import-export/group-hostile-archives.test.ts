// Group archives made to hurt: paths that climb out or start at the root, links of either kind,
// devices and FIFOs, gzip and tar bombs, a wrong VERSION, the project layout or none, malformed
// JSON and ndjson. Each import fails with a clear error in its import state, nothing is written
// outside the import's scratch, and the group stays as the request created it: no subgroup,
// label, milestone, badge, board or member of the archive.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { type RawEntry, importForm, tarGz } from '../../../test/fixtures/export-archives.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';

let t: TestApp;
const outside = `quarry-evil-${randomBytes(6).toString('hex')}`;

before(async () => {
  // A small limit on what an archive may decompress to, so that a bomb is cheap to make here.
  t = await createTestApp({ QUARRY_IMPORT_MAX_DECOMPRESSED_SIZE: String(4 * 1024 * 1024) });
  await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { group_import_limit: 0 } });
});
after(() => t.close());

const minimal = (extra: RawEntry[] = []): RawEntry[] => [
  { name: 'VERSION', body: '0.2.4' },
  { name: 'tree/groups/_all.ndjson', body: '1\n2\n' },
  { name: 'tree/groups/1.json', body: '{"id":1,"name":"top","path":"top","description":"hostile"}' },
  { name: 'tree/groups/1/labels.ndjson', body: '{"title":"should not land","color":"#000000"}\n' },
  { name: 'tree/groups/1/milestones.ndjson', body: '{"title":"should not land either","iid":1}\n' },
  { name: 'tree/groups/1/badges.ndjson', body: '{"link_url":"https://example.com","image_url":"https://example.com/b.svg","type":"GroupBadge"}\n' },
  { name: 'tree/groups/1/boards.ndjson', body: '{"name":"no board","lists":[{"list_type":"label","position":0,"label":{"title":"listed","color":"#000000"}}]}\n' },
  { name: 'tree/groups/2.json', body: '{"id":2,"name":"child","path":"child","parent_id":1}' },
  ...extra,
];

/** Imports the archive, runs its job, and checks the import failed cleanly; answers the error. */
async function failedImport(archive: Buffer): Promise<string> {
  const groupPath = `hostile-${randomBytes(3).toString('hex')}`;
  const form = importForm({ path: groupPath, name: groupPath }, archive);
  const res = await t.post('/api/v4/groups/import', { token: ROOT_TOKEN, body: form.body, headers: form.headers });
  assert.equal(res.statusCode, 202, res.body);
  const group = await t.deps.db.selectFrom('namespaces').selectAll().where('full_path', '=', groupPath).executeTakeFirstOrThrow();
  const kept = (await t.deps.db.selectFrom('group_import_states').select('file_path').where('group_id', '=', group.id).executeTakeFirstOrThrow()).file_path as string;
  await t.runJobs();
  const state = await t.deps.db.selectFrom('group_import_states').selectAll().where('group_id', '=', group.id).executeTakeFirstOrThrow();
  assert.equal(state.status, 'failed');
  assert.ok(state.last_error);
  // The group as the request made it: its description, no subgroup, label, milestone, nor member but the importer.
  const shown = await t.get(`/api/v4/groups/${group.id}`, { token: ROOT_TOKEN });
  assert.equal(shown.json().description, '');
  for (const list of ['subgroups', 'labels', 'milestones', 'badges', 'boards']) {
    const records = await t.get(`/api/v4/groups/${group.id}/${list}`, { token: ROOT_TOKEN });
    assert.deepEqual(records.json(), [], `${list} of a failed import`);
  }
  assert.deepEqual((await t.get(`/api/v4/groups/${group.id}/members`, { token: ROOT_TOKEN })).json().map((m: { username: string }) => m.username), ['root']);
  assert.equal((await t.deps.db.selectFrom('namespaces').select('id').where('parent_id', '=', group.id).execute()).length, 0);
  // Nothing escaped, the scratch is gone, and so is the uploaded archive.
  const found = fs.readdirSync(t.deps.config.dataDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.includes(outside));
  assert.deepEqual(found, []);
  assert.ok(!fs.existsSync(path.join('/tmp', outside)));
  const tmp = path.join(t.deps.config.dataDir, 'artifacts', 'tmp');
  assert.deepEqual(fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((f) => f.includes('-import-group-')) : [], []);
  assert.equal(fs.existsSync(path.join(t.deps.config.dataDir, 'artifacts', kept)), false);
  return state.last_error as string;
}

describe('hostile group archives fail cleanly', () => {
  test('a path that climbs out with .., and an absolute path', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: `../../../../../../${outside}`, body: 'x' }]))), /leads outside the archive/);
    assert.match(await failedImport(tarGz(minimal([{ name: `/tmp/${outside}`, body: 'x' }]))), /absolute path/);
  });

  test('symbolic and hard links, even in place of the group list', async () => {
    assert.match(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/groups/_all.ndjson', type: '2', linkname: '/etc/passwd' }])), /symbolic link/);
    assert.match(await failedImport(tarGz(minimal([{ name: outside, type: '2', linkname: `/tmp/${outside}` }]))), /symbolic link/);
    assert.match(await failedImport(tarGz(minimal([{ name: outside, type: '1', linkname: '/etc/passwd' }]))), /hard link/);
  });

  test('devices and FIFOs', async () => {
    assert.match(await failedImport(tarGz(minimal([{ name: 'dev', type: '3' }]))), /device/);
    assert.match(await failedImport(tarGz(minimal([{ name: 'fifo', type: '6' }]))), /FIFO/);
  });

  test('a gzip bomb and a tar entry that declares far more than there is', async () => {
    const bomb = tarGz(minimal([{ name: 'zeros', body: Buffer.alloc(16 * 1024 * 1024, 0) }]));
    assert.ok(bomb.length < 100 * 1024, `the bomb is small compressed (${bomb.length} bytes)`);
    assert.equal(await failedImport(bomb), 'Decompressed archive size validation failed.');
    assert.match(await failedImport(tarGz(minimal([{ name: 'huge', body: 'tiny', size: 1024 ** 4 }]), { end: false })), /Decompressed archive size validation failed|cut short|Invalid file/);
  });

  test('not gzip; a wrong VERSION; a project archive or no tree', async () => {
    assert.match(await failedImport(Buffer.from('plain text')), /Unable to decompress the archive/);
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.1.8' }, { name: 'tree/groups/_all.ndjson', body: '1\n' }])), 'Import version mismatch: Required 0.2.4 but was 0.1.8');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/project.json', body: '{}' }])), 'The import file is incompatible');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'group.json', body: '{}' }])), 'The import file is incompatible');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/groups/_all.ndjson', body: '' }])), 'The import file is incompatible');
  });

  test('malformed JSON and ndjson, and a group list that names another group', async () => {
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/groups/_all.ndjson', body: '1\n' }, { name: 'tree/groups/1.json', body: '{"id": 1, ' }])), 'Incorrect JSON format');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/groups/_all.ndjson', body: '"one"\n' }])), 'Incorrect JSON format');
    assert.equal(await failedImport(tarGz(minimal([{ name: 'tree/groups/2/labels.ndjson', body: '{"title":"fine"}\n{"title": broken\n' }]))), 'Incorrect JSON format');
    assert.equal(await failedImport(tarGz(minimal([{ name: 'tree/groups/1/members.ndjson', body: '[1, 2]\n' }]))), 'Incorrect JSON format');
    // Late in the restore, after the group's labels and badges went in: those go too.
    assert.equal(await failedImport(tarGz(minimal([{ name: 'tree/groups/2/boards.ndjson', body: '{"name":"fine","lists":[]}\n{"name": broken\n' }]))), 'Incorrect JSON format');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/groups/_all.ndjson', body: '1\n' }, { name: 'tree/groups/1.json', body: '{"id":7}' }])), 'Invalid group_id for 1');
    assert.equal(await failedImport(tarGz([{ name: 'VERSION', body: '0.2.4' }, { name: 'tree/groups/_all.ndjson', body: '1\n' }])), 'Invalid file');
    assert.match(await failedImport(gzipSync(Buffer.from('not a tar archive at all'.repeat(40)))), /Invalid file|Unable to decompress/);
  });
});
