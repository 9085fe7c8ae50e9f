// A real client against a listening server: @gitbeaker/rest uploads a file for Markdown, and the
// file comes back from its path.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntity } from '../../../test/matchers.ts';
import { ProjectUploadEntity } from './uploads.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(() => t.close());

test('@gitbeaker/rest: Projects.uploadForReference', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'beaker-uploads' });
  const upload = await api.Projects.uploadForReference(project.id, { content: new Blob(['diagram bytes']), filename: 'diagram.png' });
  expectEntity(upload, ProjectUploadEntity);
  assert.equal(upload.alt, 'diagram');
  assert.match(upload.markdown, /^!\[diagram\]\(\/uploads\/[0-9a-f]{32}\/diagram\.png\)$/);
  assert.equal(upload.full_path, `/${project.path_with_namespace}${upload.url}`);
  const file = await fetch(`${host}${upload.full_path}`, { headers: { 'private-token': ROOT_TOKEN } });
  assert.deepEqual([file.status, await file.text()], [200, 'diagram bytes']);
});
