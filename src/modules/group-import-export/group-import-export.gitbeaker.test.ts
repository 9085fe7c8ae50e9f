// A real client against a listening server: @gitbeaker/rest's GroupImportExports schedules a
// group's export, downloads the archive and imports it as a new group, under a parent too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { GroupDetailEntity } from '../groups/groups.schemas.ts';
import { GroupLabelEntity } from '../labels/labels.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
  // Past the platform's one download a minute, gitbeaker would retry its 429s for a long while.
  await t.put('/api/v4/application/settings', { token: ROOT_TOKEN, body: { group_download_export_limit: 0, group_import_limit: 0 } });
});
after(() => t.close());

test('@gitbeaker/rest: GroupImportExports', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const group = await api.Groups.create('Beaker source', 'beaker-source', { description: 'exported by beaker' });
  await api.GroupLabels.create(group.id, 'beaker-label', '#336699');
  await api.Groups.create('Beaker sub', 'beaker-sub', { parentId: group.id });

  const missing = await failureOf(api.GroupImportExports.download(group.id));
  assert.equal(missing.status, 404);
  assert.deepEqual(await api.GroupImportExports.scheduleExport(group.id), { message: '202 Accepted' });
  await t.runJobs();
  const blob = await api.GroupImportExports.download(group.id);
  const archive = await blob.arrayBuffer();
  assert.ok(archive.byteLength > 0);

  const accepted = await api.GroupImportExports.import({ content: new Blob([archive]), filename: 'beaker_export.tar.gz' }, 'beaker-imported', { name: 'Beaker imported' });
  assert.deepEqual(accepted, { message: '202 Accepted' });
  await t.runJobs();
  const imported = await api.Groups.show('beaker-imported');
  expectEntity(imported, GroupDetailEntity);
  assert.equal(imported.description, 'exported by beaker');
  assert.equal(imported.visibility, 'private');
  const labels = await api.GroupLabels.all('beaker-imported');
  expectEntities(labels, GroupLabelEntity);
  assert.deepEqual(labels.map((l) => l.name), ['beaker-label']);
  assert.deepEqual((await api.Groups.allSubgroups('beaker-imported')).map((g) => g.path), ['beaker-sub']);

  const parent = await api.Groups.create('Beaker parent', 'beaker-parent', { visibility: 'public' });
  // gitbeaker sends its parentId form field as it is spelled (the platform, too, reads only parent_id):
  // the field is given in the platform's spelling, passed through with the other options.
  const underParent = { parent_id: parent.id } as { parentId?: number };
  await api.GroupImportExports.import({ content: new Blob([archive]), filename: 'beaker_export.tar.gz' }, 'nested', underParent);
  await t.runJobs();
  const nested = await api.Groups.show('beaker-parent/nested');
  assert.equal(nested.visibility, 'public');

  const refused = await failureOf(api.GroupImportExports.import({ content: new Blob([archive]), filename: 'export.zip' }, 'zipped', {}));
  assert.equal(refused.status, 422);
});
