// A real client against a listening server: @gitbeaker/rest keeps project and group wikis.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { WikiAttachmentEntity, WikiPageBasicEntity, WikiPageEntity } from './wikis.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: ProjectWikis', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'beaker-wiki' });
  const page = await api.ProjectWikis.create(project.id, 'Hello from the beaker', 'Beaker home', { format: 'rdoc' });
  expectEntity(page, WikiPageEntity);
  assert.deepEqual(page, { format: 'rdoc', slug: 'Beaker-home', title: 'Beaker home', content: 'Hello from the beaker', encoding: 'UTF-8' });
  await api.ProjectWikis.create(project.id, 'Nested', 'docs/Deep page');

  const pages = await api.ProjectWikis.all(project.id);
  expectEntities(pages, WikiPageBasicEntity);
  assert.deepEqual(pages.map((p) => p.slug), ['Beaker-home', 'docs/Deep-page']);
  const withContent = await api.ProjectWikis.all(project.id, { withContent: true });
  expectEntities(withContent, WikiPageEntity);
  assert.deepEqual(withContent.map((p) => p.content), ['Hello from the beaker', 'Nested']);

  const deep = await api.ProjectWikis.show(project.id, 'docs/Deep-page', { renderHtml: true });
  expectEntity(deep, WikiPageEntity);
  assert.equal(deep.content, '<p>Nested</p>');

  const edited = await api.ProjectWikis.edit(project.id, 'Beaker-home', { content: 'Edited', format: 'markdown' });
  assert.deepEqual([edited.content, edited.format], ['Edited', 'markdown']);

  const attachment = await api.ProjectWikis.uploadAttachment(project.id, { content: new Blob(['attached']), filename: 'notes.txt' });
  expectEntity(attachment, WikiAttachmentEntity);
  assert.equal(attachment.file_name, 'notes.txt');
  assert.equal(attachment.link.markdown, `[notes.txt](${attachment.file_path})`);

  await api.ProjectWikis.remove(project.id, 'docs/Deep-page');
  const missing = await failureOf(api.ProjectWikis.show(project.id, 'docs/Deep-page'));
  assert.deepEqual(missing, { status: 404, body: '404 Wiki Page Not Found' });
});

test('@gitbeaker/rest: GroupWikis', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const group = await api.Groups.create('beaker-wiki-group', 'beaker-wiki-group');
  const page = await api.GroupWikis.create(group.id, 'For the group', 'Group page');
  expectEntity(page, WikiPageEntity);
  assert.equal(page.slug, 'Group-page');
  expectEntities(await api.GroupWikis.all(group.id), WikiPageBasicEntity);
  const shown = await api.GroupWikis.show(group.id, 'Group-page');
  assert.equal(shown.content, 'For the group');
  const edited = await api.GroupWikis.edit(group.id, 'Group-page', { title: 'Renamed page' });
  assert.deepEqual([edited.slug, edited.title, edited.content], ['Renamed-page', 'Renamed page', 'For the group']);
  const attachment = await api.GroupWikis.uploadAttachment(group.id, { content: new Blob([Buffer.from([0xff, 0xd8])]), filename: 'photo.jpg' }, { branch: 'master' });
  expectEntity(attachment, WikiAttachmentEntity);
  assert.equal(attachment.link.markdown, `![photo](${attachment.file_path})`);
  await api.GroupWikis.remove(group.id, 'Renamed-page');
  assert.deepEqual(await api.GroupWikis.all(group.id), []);
});
