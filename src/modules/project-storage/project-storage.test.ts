// GET /projects/:id/storage: the repository's place for administrators; everyone else refused first.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { createProject } from '../../../test/factories.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { ProjectRepositoryStorageEntity } from './project-storage.schemas.ts';

let t: TestApp;
let owner: TestUser;
let project: ProjectRow;

before(async () => {
  t = await createTestApp();
  owner = await t.user({ username: 'holder' });
  project = await createProject(t, { visibility: 'public', members: [[owner.user.id, ACCESS.MAINTAINER]] });
});
after(() => t.close());

test('administrators read where the repository is kept', async () => {
  const res = await t.get(`/api/v4/projects/${project.id}/storage`, { token: ROOT_TOKEN });
  expectStatus(res, 200);
  expectEntity(res.json(), ProjectRepositoryStorageEntity);
  const hash = createHash('sha256').update(String(project.id)).digest('hex');
  assert.deepEqual(res.json(), { project_id: project.id, disk_path: `@hashed/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`, created_at: project.created_at, repository_storage: 'default' });
  const byPath = await t.get(`/api/v4/projects/${encodeURIComponent(project.full_path)}/storage`, { token: ROOT_TOKEN });
  assert.deepEqual(byPath.json(), res.json());
});

test('everyone else is refused before the project is looked up; unknown projects are 404', async () => {
  expectError(await t.get(`/api/v4/projects/${project.id}/storage`), 401, { message: '401 Unauthorized' });
  expectError(await t.get(`/api/v4/projects/${project.id}/storage`, { token: owner.token }), 403, { message: '403 Forbidden' });
  expectError(await t.get('/api/v4/projects/999999/storage', { token: owner.token }), 403, { message: '403 Forbidden' });
  expectError(await t.get('/api/v4/projects/999999/storage', { token: ROOT_TOKEN }), 404, { message: '404 Project Not Found' });
});
