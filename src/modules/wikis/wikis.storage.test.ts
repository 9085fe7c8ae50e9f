// Wikis move with their owners: a project's storage move takes its wiki's repository along, a
// group's storage move is the move of its wiki, and neither wiki is written while it is copied.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectError, expectStatus } from '../../../test/matchers.ts';
import { groupWikiRelativePath, projectWikiRelativePath, repositoryExists } from '../../git/repository.ts';

let t: TestApp;
const admin = { token: ROOT_TOKEN };

before(async () => {
  t = await createTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,other=other-repositories' });
});
after(() => t.close());

const on = (storage: string, relative: string) => repositoryExists(path.join(t.deps.config.repositoryStorages[storage], relative));
const READ_ONLY = { message: 'The repository is temporarily read-only. Please try again later.' };

test("a project's storage move takes its wiki along; the wiki is read-only meanwhile", async () => {
  const project = (await t.post('/api/v4/projects', { ...admin, body: { name: 'travelling', initialize_with_readme: true } })).json();
  expectStatus(await t.post(`/api/v4/projects/${project.id}/wikis`, { ...admin, body: { title: 'Packed', content: 'suitcase' } }), 201);
  const wiki = projectWikiRelativePath(project.id);
  assert.equal(on('default', wiki), true);

  expectStatus(await t.post(`/api/v4/projects/${project.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } }), 201);
  expectError(await t.post(`/api/v4/projects/${project.id}/wikis`, { ...admin, body: { title: 'Late', content: 'too late' } }), 400, READ_ONLY);
  await t.runJobs();
  await t.runJobs();
  assert.deepEqual([on('default', wiki), on('other', wiki)], [false, true]);
  const page = await t.get(`/api/v4/projects/${project.id}/wikis/Packed`, admin);
  assert.equal(page.json().content, 'suitcase');
  expectStatus(await t.post(`/api/v4/projects/${project.id}/wikis`, { ...admin, body: { title: 'Arrived', content: 'unpacked' } }), 201);
});

test("a group's storage move moves its wiki, one by one and in bulk", async () => {
  const group = (await t.post('/api/v4/groups', { ...admin, body: { name: 'Nomads', path: 'nomads' } })).json();
  expectStatus(await t.post(`/api/v4/groups/${group.id}/wikis`, { ...admin, body: { title: 'Camp', content: 'tents' } }), 201);
  const wiki = groupWikiRelativePath(group.id);
  assert.equal(on('default', wiki), true);

  const move = await t.post(`/api/v4/groups/${group.id}/repository_storage_moves`, { ...admin, body: { destination_storage_name: 'other' } });
  expectStatus(move, 201);
  assert.deepEqual([move.json().source_storage_name, move.json().destination_storage_name], ['default', 'other']);
  expectError(await t.post(`/api/v4/groups/${group.id}/wikis`, { ...admin, body: { title: 'Late', content: 'too late' } }), 400, READ_ONLY);
  await t.runJobs();
  assert.equal((await t.get(`/api/v4/groups/${group.id}/repository_storage_moves/${move.json().id}`, admin)).json().state, 'finished');
  assert.deepEqual([on('default', wiki), on('other', wiki)], [false, true]);
  assert.equal((await t.get(`/api/v4/groups/${group.id}/wikis/Camp`, admin)).json().content, 'tents');

  // Every group wiki on a storage, back again.
  expectStatus(await t.post('/api/v4/group_repository_storage_moves', { ...admin, body: { source_storage_name: 'other', destination_storage_name: 'default' } }), 202);
  await t.runJobs();
  assert.deepEqual([on('default', wiki), on('other', wiki)], [true, false]);
  expectStatus(await t.post(`/api/v4/groups/${group.id}/wikis`, { ...admin, body: { title: 'Home again', content: 'settled' } }), 201);
});
