// A real client against a listening server: @gitbeaker/rest comments on a commit, on a line of its
// diff, and reads the comments back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { createProject } from '../../../test/factories.ts';
import { giveRepository } from '../../../test/fixtures/repository.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { CommitNoteEntity } from '../notes/notes.schemas.ts';

let t: TestApp;
let host: string;
let project: ProjectRow;
let head: string;

before(async () => {
  ({ t, host } = await listeningTestApp());
  project = await createProject(t, { path: 'with-readme', visibility: 'public' });
  ({ head } = await giveRepository(t, project));
});
after(() => t.close());

test('Commits.createComment and allComments', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const plain = await api.Commits.createComment(project.id, head, 'Looks good');
  expectEntity(plain, CommitNoteEntity);
  // The root commit adds README.md's only line.
  const onLine = await api.Commits.createComment(project.id, 'main', 'Title?', { path: 'README.md', line: 1, lineType: 'new' });
  expectEntity(onLine, CommitNoteEntity);
  assert.deepEqual([onLine.path, onLine.line, onLine.line_type], ['README.md', 1, 'new']);
  const all = await new Gitlab({ host, token: '' } as unknown as ConstructorParameters<typeof Gitlab>[0]).Commits.allComments(project.id, head);
  expectEntities(all, CommitNoteEntity);
  assert.deepEqual(all.map((n) => n.note), ['Looks good', 'Title?']);
  assert.deepEqual(await failureOf(api.Commits.allComments(project.id, 'nope')), { status: 404, body: '404 Commit Not Found' });
});
