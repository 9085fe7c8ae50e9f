// Rebasing without a work tree: the commits git rebase would pick, replayed with their authors and
// messages (renames followed, merges linearized, changes the upstream has skipped), conflicts found.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { type FileAction, createCommit, getBlob, getCommit, readTree } from './commits.ts';
import { commitTree, treeOf } from './merges.ts';
import { rebaseOnto } from './rebase.ts';
import { resolveRef } from './refs.ts';
import { createRepository } from './repository.ts';

let root: string;
let repo: string;
const author = { name: 'Ada Lovelace', email: 'ada@example.com' };
const committer = { name: 'Rene Rebaser', email: 'rene@example.com' };
const at = new Date('2024-03-04T05:06:07.000Z');
const now = new Date('2025-01-01T00:00:00.000Z');

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-rebase-'));
  repo = path.join(root, 'repo.git');
  await createRepository(repo, { defaultBranch: 'main' });
  await commit('main', [{ action: 'create', path: 'a.txt', content: 'a1\na2\na3\n' }]);
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

const commit = async (branch: string, actions: FileAction[], extra: { from?: string; message?: string } = {}) =>
  (await createCommit(repo, { branch, actions, message: extra.message ?? 'change', author, date: at, ...(extra.from ? { startRevision: extra.from } : {}) })).id;
const head = async (branch: string) => (await resolveRef(repo, `refs/heads/${branch}`)) as string;
async function files(revision: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of (await readTree(repo, revision, '', { recursive: true })) ?? []) if (entry.type === 'blob') out[entry.path] = (await getBlob(repo, entry.id))?.toString() ?? '';
  return out;
}
/** The first-parent chain from `to` back to (not including) `from`, oldest first. */
async function chain(to: string, from: string): Promise<string[]> {
  const out: string[] = [];
  for (let id: string = to; id !== from; ) {
    out.unshift(id);
    id = (await getCommit(repo, id))?.parents[0] as string;
  }
  return out;
}

test('replays each commit onto the upstream with its author, date and message; the committer is who asked', async () => {
  const base = await head('main');
  await commit('topic', [{ action: 'update', path: 'a.txt', content: 'a1\na2\na3 topic\n' }], { from: base, message: 'Topic one\n\nbody\n' });
  await commit('topic', [{ action: 'create', path: 'b.txt', content: 'b\n' }], { message: 'Topic two' });
  const upstream = await commit('main', [{ action: 'update', path: 'a.txt', content: 'a1 main\na2\na3\n' }]);
  const result = await rebaseOnto(repo, { upstream, head: await head('topic'), committer, date: now });
  assert.ok(result.ok);
  const [one, two] = await chain(result.head, upstream);
  const first = await getCommit(repo, one);
  const second = await getCommit(repo, two);
  assert.equal(first?.message, 'Topic one\n\nbody\n');
  assert.equal(second?.message, 'Topic two');
  assert.deepEqual([first?.author.name, first?.author.email, first?.author.timestamp], [author.name, author.email, at.getTime() / 1000]);
  assert.deepEqual([second?.committer.name, second?.committer.timestamp], [committer.name, now.getTime() / 1000]);
  assert.deepEqual(await files(result.head), { 'a.txt': 'a1 main\na2\na3 topic\n', 'b.txt': 'b\n' });
  // Rebasing the result again changes nothing.
  assert.deepEqual(await rebaseOnto(repo, { upstream, head: result.head, committer, date: now }), { ok: true, head: result.head });
});

test('follows a rename on the upstream, skips a change the upstream already has, linearizes merges', async () => {
  const base = await head('main');
  await commit('side', [{ action: 'update', path: 'a.txt', content: 'a1 main\na2 side\na3 topic\n' }], { from: base, message: 'Side edit' });
  await commit('side', [{ action: 'create', path: 'same.txt', content: 'same\n' }], { message: 'Same change' });
  // A merge of main into the branch.
  const other = await commit('other', [{ action: 'create', path: 'c.txt', content: 'c\n' }], { from: base, message: 'Other' });
  const sideHead = await head('side');
  const merge = await commitTree(repo, { tree: await treeOf(repo, sideHead), parents: [sideHead, other], message: 'Merge other', author, committer: author, date: at });
  await commit('main', [{ action: 'create', path: 'same.txt', content: 'same\n' }], { from: await head('main'), message: 'Same change upstream' });
  const upstream = await commit('main', [{ action: 'move', previousPath: 'a.txt', path: 'moved.txt' }]);
  const result = await rebaseOnto(repo, { upstream, head: merge, committer, date: now });
  assert.ok(result.ok);
  const picked = await chain(result.head, upstream);
  // As git rebase: the merge is gone, the commits it brought in are picked like the branch's own.
  assert.deepEqual((await Promise.all(picked.map(async (id) => (await getCommit(repo, id))?.message))).sort(), ['Other', 'Side edit']);
  const after = await files(result.head);
  assert.equal(after['moved.txt'], 'a1 main\na2 side\na3 topic\n');
  assert.equal(after['a.txt'], undefined);
  assert.equal(after['c.txt'], 'c\n');
});

test('a conflict names the commit that did not apply', async () => {
  const base = await head('main');
  const clash = await commit('clash', [{ action: 'create', path: 'x.txt', content: 'branch\n' }], { from: base });
  const upstream = await commit('main', [{ action: 'create', path: 'x.txt', content: 'main\n' }]);
  assert.deepEqual(await rebaseOnto(repo, { upstream, head: clash, committer, date: now }), { ok: false, conflictAt: clash });
});

test('a branch whose commits are all upstream moves to the upstream', async () => {
  const upstream = await head('main');
  const behind = (await getCommit(repo, upstream))?.parents[0] as string;
  assert.deepEqual(await rebaseOnto(repo, { upstream, head: behind, committer, date: now }), { ok: true, head: upstream });
});
