// Reading commits, trees and blobs; writing commits from file actions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ActionError, type FileAction, createCommit, getBlob, getCommit, readBlob, readTree } from './commits.ts';
import { resolveRef } from './refs.ts';
import { createRepository } from './repository.ts';
import { GitError, runGit } from './run.ts';

let root: string;
let repo: string;
const author = { name: 'Ada Lovelace', email: 'ada@example.com' };
const at = new Date('2024-03-04T05:06:07.000Z');

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-commits-'));
  repo = path.join(root, 'repo.git');
  await createRepository(repo, { defaultBranch: 'main' });
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

const commit = (branch: string, actions: FileAction[], extra: { startRevision?: string; message?: string } = {}) =>
  createCommit(repo, { branch, actions, message: extra.message ?? 'change', author, date: at, ...(extra.startRevision ? { startRevision: extra.startRevision } : {}) });

/** path → [mode, content] of every file at a revision. */
async function files(revision: string): Promise<Record<string, [string, string]>> {
  const out: Record<string, [string, string]> = {};
  for (const entry of (await readTree(repo, revision, '', { recursive: true })) ?? []) {
    if (entry.type !== 'blob') continue;
    out[entry.path] = [entry.mode, (await getBlob(repo, entry.id))?.toString() ?? ''];
  }
  return out;
}

const refusedWith = (reason: ActionError['reason']) => (e: unknown) => e instanceof ActionError && e.reason === reason;

test('each action: create, update, move, chmod, delete; one commit per call on the branch head', async () => {
  const root1 = await commit('main', [
    { action: 'create', path: 'README.md', content: '# hi\n' },
    { action: 'create', path: 'bin/run', content: '#!/bin/sh\n', executable: true },
    { action: 'create', path: 'src/a.txt', content: Buffer.from([0, 1, 2]) },
  ], { message: 'Initial commit' });
  assert.equal(root1.parent, null);
  assert.equal(root1.branchCreated, true);
  assert.deepEqual(await files('main'), {
    'README.md': ['100644', '# hi\n'],
    'bin/run': ['100755', '#!/bin/sh\n'],
    'src/a.txt': ['100644', '\0\x01\x02'],
  });

  const next = await commit('main', [
    { action: 'update', path: 'README.md', content: '# hello\n' },
    { action: 'move', path: 'lib/a.txt', previousPath: 'src/a.txt' },
    { action: 'chmod', path: 'bin/run', executable: false },
    { action: 'create', path: 'tmp.txt', content: 'tmp' },
  ]);
  assert.equal(next.parent, root1.id);
  assert.equal(next.branchCreated, false);
  const last = await commit('main', [
    { action: 'delete', path: 'tmp.txt' },
    { action: 'move', path: 'docs/README.md', previousPath: 'README.md', content: 'moved and changed' },
    { action: 'update', path: 'bin/run', content: 'exec true\n', executable: true },
  ]);
  assert.deepEqual(await files('main'), {
    'docs/README.md': ['100644', 'moved and changed'],
    'bin/run': ['100755', 'exec true\n'],
    'lib/a.txt': ['100644', '\0\x01\x02'],
  });
  assert.equal(await resolveRef(repo, 'refs/heads/main'), last.id);
  assert.deepEqual((await getCommit(repo, 'main'))?.parents, [next.id]);
  await runGit(repo, ['fsck', '--strict', '--no-progress']);
});

test('actions that do not fit the tree are refused with the platform messages, and nothing is committed', async () => {
  const head = await resolveRef(repo, 'refs/heads/main');
  await assert.rejects(commit('main', [{ action: 'create', path: 'lib/a.txt', content: 'x' }]), refusedWith('file_exists'));
  await assert.rejects(commit('main', [{ action: 'create', path: 'lib', content: 'x' }]), refusedWith('directory_exists'));
  await assert.rejects(commit('main', [{ action: 'create', path: 'lib/a.txt/b', content: 'x' }]), refusedWith('file_exists'));
  await assert.rejects(commit('main', [{ action: 'update', path: 'nothing', content: 'x' }]), refusedWith('file_not_found'));
  await assert.rejects(commit('main', [{ action: 'delete', path: 'nothing' }]), refusedWith('file_not_found'));
  await assert.rejects(commit('main', [{ action: 'chmod', path: 'lib', executable: true }]), refusedWith('file_not_found'));
  await assert.rejects(commit('main', [{ action: 'move', path: 'x', previousPath: 'nothing' }]), refusedWith('file_not_found'));
  await assert.rejects(commit('main', [{ action: 'move', path: 'bin/run', previousPath: 'lib/a.txt' }]), refusedWith('file_exists'));
  await assert.rejects(commit('main', [{ action: 'create', path: 'ok.txt', content: 'x' }, { action: 'create', path: 'ok.txt', content: 'y' }]), refusedWith('file_exists'));
  await assert.rejects(commit('main', [{ action: 'create', path: '../escape', content: 'x' }]), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
  await assert.rejects(commit('main', [{ action: 'create', path: '.git/config', content: 'x' }]), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
  await assert.rejects(commit('main', [{ action: 'delete', path: 'nothing' }]), (e: unknown) => {
    assert.ok(e instanceof ActionError);
    assert.equal(e.message, "A file with this name doesn't exist");
    assert.equal(e.path, 'nothing');
    return true;
  });
  assert.equal(await resolveRef(repo, 'refs/heads/main'), head);
});

test('a file may give way to a directory of the same name in one commit', async () => {
  await commit('main', [
    { action: 'delete', path: 'lib/a.txt' },
    { action: 'create', path: 'lib/a.txt/inner', content: 'inside' },
  ]);
  assert.equal((await readBlob(repo, 'main', 'lib/a.txt/inner'))?.content.toString(), 'inside');
});

test('a directory emptied in one commit may give way to a file, and a moved file frees its directory', async () => {
  await commit('main', [
    { action: 'create', path: 'gone/x.txt', content: 'x' },
    { action: 'create', path: 'gone/deep/y.txt', content: 'y' },
    { action: 'create', path: 'kept/z.txt', content: 'z' },
  ]);
  await assert.rejects(commit('main', [{ action: 'delete', path: 'gone/x.txt' }, { action: 'create', path: 'gone', content: 'f' }]), refusedWith('directory_exists'));
  await commit('main', [
    { action: 'delete', path: 'gone/x.txt' },
    { action: 'move', previousPath: 'gone/deep/y.txt', path: 'moved.txt' },
    { action: 'create', path: 'gone', content: 'now a file' },
  ]);
  assert.equal((await readBlob(repo, 'main', 'gone'))?.content.toString(), 'now a file');
  await assert.rejects(commit('main', [{ action: 'create', path: 'kept', content: 'k' }]), refusedWith('directory_exists'));
});

test('a new branch starts at startRevision, or as a root commit', async () => {
  const head = (await resolveRef(repo, 'refs/heads/main')) as string;
  const branched = await commit('feature', [{ action: 'create', path: 'f.txt', content: 'f' }], { startRevision: 'main' });
  assert.equal(branched.parent, head);
  assert.equal(branched.branchCreated, true);
  const orphan = await commit('orphan', [{ action: 'create', path: 'o.txt', content: 'o' }]);
  assert.equal(orphan.parent, null);
  assert.deepEqual(Object.keys(await files('orphan')), ['o.txt']);
  // An existing branch ignores startRevision.
  const again = await commit('feature', [{ action: 'create', path: 'g.txt', content: 'g' }], { startRevision: 'orphan' });
  assert.equal(again.parent, branched.id);
  await assert.rejects(commit('other', [], { startRevision: 'nothing' }), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
});

test('getCommit: ids, tree, parents, author, committer, message', async () => {
  const made = await createCommit(repo, {
    branch: 'main',
    actions: [{ action: 'create', path: 'c.txt', content: 'c' }],
    message: 'Subject line\n\nBody ünïcödé\n',
    author,
    committer: { name: 'Bot', email: 'bot@example.com' },
    date: at,
  });
  const found = await getCommit(repo, 'main');
  assert.ok(found);
  assert.equal(found.id, made.id);
  assert.deepEqual(found.parents, [made.parent]);
  assert.match(found.tree, /^[0-9a-f]{40}$/);
  assert.deepEqual(found.author, { name: 'Ada Lovelace', email: 'ada@example.com', date: '2024-03-04T05:06:07.000+00:00', timestamp: 1709528767 });
  assert.equal(found.committer.name, 'Bot');
  assert.equal(found.message, 'Subject line\n\nBody ünïcödé\n');
  assert.equal((await getCommit(repo, made.id.slice(0, 8)))?.id, made.id);
  assert.equal(await getCommit(repo, 'nothing'), null);
});

test('readTree: a directory or the root, recursively with directories; null for what is not there', async () => {
  const rootEntries = (await readTree(repo, 'main')) ?? [];
  assert.ok(rootEntries.some((e) => e.path === 'docs' && e.type === 'tree' && e.mode === '040000'));
  const docs = await readTree(repo, 'main', 'docs');
  assert.deepEqual(docs?.map((e) => [e.name, e.path, e.type, e.mode]), [['README.md', 'docs/README.md', 'blob', '100644']]);
  const all = (await readTree(repo, 'main', '', { recursive: true })) ?? [];
  assert.ok(all.some((e) => e.path === 'lib/a.txt' && e.type === 'tree'));
  assert.ok(all.some((e) => e.path === 'lib/a.txt/inner' && e.type === 'blob'));
  assert.equal(await readTree(repo, 'main', 'nothing'), null);
  assert.equal(await readTree(repo, 'main', 'c.txt'), null);
  assert.equal(await readTree(repo, 'nothing'), null);
});

test('readBlob: content, mode and size; null for directories and absent files; a size limit', async () => {
  const blob = await readBlob(repo, 'main', 'bin/run');
  assert.deepEqual(blob && { ...blob, content: blob.content.toString() }, { id: blob?.id, path: 'bin/run', mode: '100755', size: 10, content: 'exec true\n' });
  assert.equal(await readBlob(repo, 'main', 'docs'), null);
  assert.equal(await readBlob(repo, 'main', 'nothing'), null);
  assert.equal(await readBlob(repo, 'nothing', 'bin/run'), null);
  await assert.rejects(readBlob(repo, 'main', 'bin/run', { maxBytes: 5 }), (e: unknown) => e instanceof GitError && e.kind === 'output_limit');
  assert.equal(await getBlob(repo, '1111111111111111111111111111111111111111'), null);
});

test('concurrent commits on one branch: one wins, the other fails cleanly, the repository stays consistent', async () => {
  const head = (await resolveRef(repo, 'refs/heads/main')) as string;
  const results = await Promise.allSettled(
    ['one', 'two', 'three', 'four'].map((name) => commit('main', [{ action: 'create', path: `race/${name}.txt`, content: name }])),
  );
  const won = results.filter((r) => r.status === 'fulfilled');
  assert.equal(won.length, 1);
  for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof GitError && r.reason.kind === 'conflict', String(r.reason));
  const winner = (won[0] as PromiseFulfilledResult<{ id: string; parent: string | null }>).value;
  assert.equal(winner.parent, head);
  assert.equal(await resolveRef(repo, 'refs/heads/main'), winner.id);
  assert.equal(((await readTree(repo, 'main', 'race')) ?? []).length, 1);
  await runGit(repo, ['fsck', '--strict', '--no-progress']);
});
