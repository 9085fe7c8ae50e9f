// A real client against a listening server: @gitbeaker/rest creates a release (and its tag from a
// ref), lists and reads releases, manages their links, updates and deletes them, and reads the
// platform's errors, without noticing it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { type TestApp, type TestUser } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { createProject } from '../../../test/factories.ts';
import { giveRepository } from '../../../test/fixtures/repository.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { LinkEntity, ReleaseEntity } from './releases.schemas.ts';

let t: TestApp;
let host: string;
let dev: TestUser;
let project: ProjectRow;

before(async () => {
  ({ t, host } = await listeningTestApp());
  dev = await t.user({ username: 'dev' });
  project = await createProject(t, { visibility: 'private', members: [[dev.user.id, ACCESS.DEVELOPER]] });
  await giveRepository(t, project);
});
after(() => t.close());

test('@gitbeaker/rest: ProjectReleases and ReleaseLinks', async () => {
  const api = new Gitlab({ host, token: dev.token });
  const created = await api.ProjectReleases.create(project.id, { tagName: 'v1.0', ref: 'main', name: 'One', description: 'First', assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] } });
  expectEntity(created, ReleaseEntity);
  assert.equal(created.tag_name, 'v1.0');
  await api.ProjectReleases.create(project.id, { tagName: 'v2.0', ref: 'main', releasedAt: '2999-01-01T00:00:00Z' });

  const all = await api.ProjectReleases.all(project.id, { perPage: 1 });
  expectEntities(all, ReleaseEntity);
  assert.deepEqual(all.map((r) => r.tag_name), ['v2.0', 'v1.0']);
  const shown = await api.ProjectReleases.show(project.id, 'v1.0');
  expectEntity(shown, ReleaseEntity);
  assert.equal(shown.description, 'First');

  const link = await api.ReleaseLinks.create(project.id, 'v1.0', 'docs', 'https://example.com/docs', { linkType: 'runbook' });
  expectEntity(link, LinkEntity);
  const links = await api.ReleaseLinks.all(project.id, 'v1.0');
  expectEntities(links, LinkEntity);
  assert.deepEqual(links.map((l) => l.name), ['docs', 'bin']);
  const edited = await api.ReleaseLinks.edit(project.id, 'v1.0', link.id as number, { name: 'manual' });
  assert.equal(edited.name, 'manual');
  await api.ReleaseLinks.remove(project.id, 'v1.0', link.id as number);

  const updated = await api.ProjectReleases.edit(project.id, 'v1.0', { name: 'Uno' });
  expectEntity(updated, ReleaseEntity);
  assert.equal(updated.name, 'Uno');
  await api.ProjectReleases.remove(project.id, 'v1.0');
  assert.deepEqual(await failureOf(api.ProjectReleases.show(project.id, 'v1.0')), { status: 404, body: '404 Not Found' });
  assert.deepEqual(await failureOf(api.ProjectReleases.create(project.id, { tagName: 'v2.0' })), { status: 409, body: 'Release already exists' });
});
