// A real client against a listening server: @gitbeaker/rest keeps personal and project snippets
// (several files, file actions, raw content, user agent details, a project snippet's notes and
// discussions) and moves a snippet's repository.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { failureOf, listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { DiscussionEntity, NoteEntity } from '../notes/notes.schemas.ts';
import { SnippetStorageMoveEntity } from '../repository-storage-moves/repository-storage-moves.schemas.ts';
import { SnippetEntity, UserAgentDetailEntity } from './snippets.schemas.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_REPOSITORY_STORAGES: 'default=repositories,other=other-repositories' }));
});
after(() => t.close());

test('@gitbeaker/rest: Snippets', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const snippet = await api.Snippets.create('beaker', { visibility: 'public', description: 'two files', files: [{ filePath: 'a.md', content: '# A' }, { filePath: 'b.txt', content: 'B' }] });
  expectEntity(snippet, SnippetEntity);
  assert.deepEqual(
    (snippet.files as { path: string }[]).map((f) => f.path),
    ['a.md', 'b.txt'],
  );
  expectEntity(await api.Snippets.show(snippet.id as number), SnippetEntity);
  assert.equal(await api.Snippets.showContent(snippet.id as number), '# A');
  assert.equal(await api.Snippets.showRepositoryFileContent(snippet.id as number, 'main', 'b.txt'), 'B');
  const edited = await api.Snippets.edit(snippet.id as number, { description: 'three files', files: [{ action: 'create', filePath: 'c.txt', content: 'C' }] });
  expectEntity(edited, SnippetEntity);
  assert.equal((edited.files as unknown[]).length, 3);
  expectEntities(await api.Snippets.all(), SnippetEntity);
  expectEntities(await api.Snippets.all({ public: true }), SnippetEntity);
  expectEntity(await api.Snippets.showUserAgentDetails(snippet.id as number), UserAgentDetailEntity);

  // Every snippet of the default storage moves (the scheduling, then each move, in the background).
  await api.SnippetRepositoryStorageMoves.schedule('default', { destinationStorageName: 'other' });
  await t.runJobs();
  await t.runJobs();
  const moves = await api.SnippetRepositoryStorageMoves.all();
  expectEntities(moves, SnippetStorageMoveEntity);
  const move = moves.find((m) => (m.snippet as { id: number }).id === snippet.id)!;
  expectEntity(await api.SnippetRepositoryStorageMoves.show(move.id as number), SnippetStorageMoveEntity);
  assert.deepEqual([move.state, move.destination_storage_name], ['finished', 'other']);
  assert.equal(await api.Snippets.showContent(snippet.id as number), '# A');

  await api.Snippets.remove(snippet.id as number);
  assert.equal((await failureOf(api.Snippets.show(snippet.id as number))).status, 404);
});

test('@gitbeaker/rest: ProjectSnippets', async () => {
  const api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'beaker-snippets' });
  const snippet = await api.ProjectSnippets.create(project.id, 'setup', { visibility: 'private', files: [{ filePath: 'setup.sh', content: 'echo hi' }] });
  expectEntity(snippet, SnippetEntity);
  assert.equal(snippet.project_id, project.id);
  expectEntities(await api.ProjectSnippets.all(project.id), SnippetEntity);
  expectEntity(await api.ProjectSnippets.show(project.id, snippet.id as number), SnippetEntity);
  assert.equal(await api.ProjectSnippets.showContent(project.id, snippet.id as number), 'echo hi');
  const edited = await api.ProjectSnippets.edit(project.id, snippet.id as number, { files: [{ action: 'move', previousPath: 'setup.sh', filePath: 'install.sh' }] });
  assert.equal(edited.file_name, 'install.sh');
  assert.equal(await api.ProjectSnippets.showRepositoryFileContent(project.id, snippet.id as number, 'main', 'install.sh'), 'echo hi');
  expectEntity(await api.ProjectSnippets.showUserAgentDetails(project.id, snippet.id as number), UserAgentDetailEntity);
  // Its comments and threads.
  const note = await api.ProjectSnippetNotes.create(project.id, snippet.id as number, 'Runs everywhere');
  expectEntity(note, NoteEntity);
  assert.deepEqual([note.noteable_type, note.noteable_id], ['Snippet', snippet.id]);
  const notes = await api.ProjectSnippetNotes.all(project.id, snippet.id as number, { sort: 'asc' });
  expectEntities(notes, NoteEntity);
  assert.deepEqual(notes.map((n) => n.id), [note.id]);
  expectEntity(await api.ProjectSnippetNotes.show(project.id, snippet.id as number, note.id), NoteEntity);
  assert.equal((await api.ProjectSnippetNotes.edit(project.id, snippet.id as number, note.id, { body: 'Runs anywhere' })).body, 'Runs anywhere');
  await api.ProjectSnippetNotes.remove(project.id, snippet.id as number, note.id);
  assert.deepEqual(await api.ProjectSnippetNotes.all(project.id, snippet.id as number), []);
  const thread = await api.ProjectSnippetDiscussions.create(project.id, snippet.id as number, 'Why echo?');
  expectEntity(thread, DiscussionEntity);
  expectEntity(await api.ProjectSnippetDiscussions.addNote(project.id, snippet.id as number, thread.id, 'Why not'), NoteEntity);
  const threads = await api.ProjectSnippetDiscussions.all(project.id, snippet.id as number);
  expectEntities(threads, DiscussionEntity);
  assert.deepEqual(threads.map((d) => d.notes?.map((n) => n.body)), [['Why echo?', 'Why not']]);

  const refusal = await failureOf(api.ProjectSnippets.create(project.id, 'no files', { visibility: 'private' }));
  assert.equal(refusal.status, 400);
  await api.ProjectSnippets.remove(project.id, snippet.id as number);
  assert.deepEqual(await api.ProjectSnippets.all(project.id), []);
});
