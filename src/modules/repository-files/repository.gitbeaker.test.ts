// A real client against a real socket: @gitbeaker/rest creates, reads, edits and removes files,
// commits several actions at once, lists and shows commits, reads the tree and downloads an
// archive, and must not notice it is not talking to the platform.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { Gitlab } from '@gitbeaker/rest';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp, statusOf } from '../../../test/listening.ts';
import { expectEntities, expectEntity } from '../../../test/matchers.ts';
import { CommitDetailEntity } from '../commits/commits.schemas.ts';
import { TreeObjectEntity } from '../repository/repository.schemas.ts';
import { FileCommitEntity, FileEntity } from './repository-files.schemas.ts';

let t: TestApp;
let api: InstanceType<typeof Gitlab>;
let projectId: number;

before(async () => {
  let host: string;
  ({ t, host } = await listeningTestApp());
  api = new Gitlab({ host, token: ROOT_TOKEN });
  const project = await api.Projects.create({ name: 'gb-repo', initializeWithReadme: true });
  projectId = project.id;
});
after(() => t.close());

test('RepositoryFiles: create, show, showRaw, edit, remove', async () => {
  const created = await api.RepositoryFiles.create(projectId, 'docs/guide ✓.md', 'main', 'hello\n', 'Add the guide', { authorName: 'Gb Author', authorEmail: 'gb@example.com' });
  expectEntity(created, FileCommitEntity);
  assert.deepEqual(created, { file_path: 'docs/guide ✓.md', branch: 'main' });

  const shown = await api.RepositoryFiles.show(projectId, 'docs/guide ✓.md', 'main');
  expectEntity(shown, FileEntity);
  const lastCommitId = String(shown.last_commit_id);
  assert.equal(Buffer.from(shown.content, 'base64').toString(), 'hello\n');
  const raw = await api.RepositoryFiles.showRaw(projectId, 'docs/guide ✓.md', 'main');
  assert.equal(typeof raw === 'string' ? raw : await (raw as Blob).text(), 'hello\n');

  await api.RepositoryFiles.edit(projectId, 'docs/guide ✓.md', 'main', Buffer.from('bye\n').toString('base64'), 'Edit', { encoding: 'base64', lastCommitId });
  assert.equal(Buffer.from((await api.RepositoryFiles.show(projectId, 'docs/guide ✓.md', 'main')).content, 'base64').toString(), 'bye\n');
  assert.equal(await statusOf(api.RepositoryFiles.edit(projectId, 'docs/guide ✓.md', 'main', 'stale', 'Edit', { lastCommitId })), 400);

  await api.RepositoryFiles.remove(projectId, 'docs/guide ✓.md', 'main', 'Remove');
  assert.equal(await statusOf(api.RepositoryFiles.show(projectId, 'docs/guide ✓.md', 'main')), 404);
});

test('Commits: create with actions, all, show; Repositories: tree and archive', async () => {
  const commit = await api.Commits.create(projectId, 'feature', 'Two files', [
    { action: 'create', filePath: 'a.txt', content: 'a' },
    { action: 'create', filePath: 'src/b.txt', content: 'b' },
  ], { startBranch: 'main' });
  expectEntity(commit, CommitDetailEntity);
  assert.equal(commit.title, 'Two files');

  const commits = await api.Commits.all(projectId, { refName: 'feature', withStats: false });
  expectEntities(commits, CommitEntity);
  assert.equal(commits[0].id, commit.id);
  const shown = await api.Commits.show(projectId, commit.id);
  expectEntity(shown, CommitDetailEntity);
  assert.deepEqual(shown.stats, { additions: 2, deletions: 0, total: 2 });

  const tree = await api.Repositories.allRepositoryTrees(projectId, { ref: 'feature', recursive: true });
  expectEntities(tree, TreeObjectEntity);
  assert.deepEqual(tree.map((e) => e.path), ['README.md', 'a.txt', 'src', 'src/b.txt']);

  const archive = await api.Repositories.showArchive(projectId, { fileType: 'tar.gz', sha: 'feature' });
  const bytes = Buffer.from(await (archive as Blob).arrayBuffer());
  assert.ok(gunzipSync(bytes).includes(Buffer.from(`gb-repo-feature-${commit.id}/src/b.txt`)));
});
