// Branches and tags: listing, resolving, compare-and-set updates and their races.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ZERO_OID } from './args.ts';
import { createCommit } from './commits.ts';
import { deleteRef, getRef, hasBranches, isAncestor, listRefs, resolveCommit, resolveRef, updateRef, updateRefs } from './refs.ts';
import { createRepository } from './repository.ts';
import { GitError, runGit } from './run.ts';
import { identityEnv } from './signature.ts';

let root: string;
let repo: string;
let first: string;
let second: string;
const author = { name: 'Ada Lovelace', email: 'ada@example.com' };
const at = new Date('2024-03-04T05:06:07.000Z');

const conflict = (e: unknown) => e instanceof GitError && e.kind === 'conflict';

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-refs-'));
  repo = path.join(root, 'repo.git');
  first = (await createRepository(repo, { defaultBranch: 'main', readme: { content: '# r\n', message: 'Initial commit', author, date: at } })) as string;
  second = (await createCommit(repo, { branch: 'main', actions: [{ action: 'create', path: 'b.txt', content: 'b' }], message: 'Add b', author, date: at })).id;
  await updateRef(repo, 'refs/heads/feature/x', first, null);
  await runGit(repo, ['tag', '--', 'v0.1', first]);
  await runGit(repo, ['tag', '-a', '-m', 'Release 1.0\n\nNotes.', '--', 'v1.0', second], { env: identityEnv('COMMITTER', author, at) });
  const tree = (await runGit(repo, ['rev-parse', `${second}^{tree}`])).stdout.toString().trim();
  await runGit(repo, ['tag', '-a', '-m', 'A tree', '--', 'tree-tag', tree], { env: identityEnv('COMMITTER', author, at) });
  await runGit(repo, ['tag', '-a', '-m', 'Outer', '--', 'nested', 'v1.0'], { env: identityEnv('COMMITTER', author, at) });
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('listRefs: branches and tags with their commits; annotated tags with their object, message and tagger', async () => {
  const refs = await listRefs(repo);
  assert.deepEqual(
    refs.map((r) => [r.ref, r.name, r.type]),
    [
      ['refs/heads/feature/x', 'feature/x', 'branch'],
      ['refs/heads/main', 'main', 'branch'],
      ['refs/tags/nested', 'nested', 'tag'],
      ['refs/tags/tree-tag', 'tree-tag', 'tag'],
      ['refs/tags/v0.1', 'v0.1', 'tag'],
      ['refs/tags/v1.0', 'v1.0', 'tag'],
    ],
  );
  const byName = new Map(refs.map((r) => [r.ref, r]));
  assert.deepEqual(byName.get('refs/heads/main'), { ref: 'refs/heads/main', name: 'main', type: 'branch', target: second, commit: second, tag: null });
  assert.deepEqual(byName.get('refs/tags/v0.1'), { ref: 'refs/tags/v0.1', name: 'v0.1', type: 'tag', target: first, commit: first, tag: null });
  const v1 = byName.get('refs/tags/v1.0');
  assert.ok(v1?.tag);
  assert.notEqual(v1.target, second);
  assert.equal(v1.commit, second);
  assert.equal(v1.tag.id, v1.target);
  assert.equal(v1.tag.message, 'Release 1.0\n\nNotes.\n');
  assert.deepEqual(v1.tag.tagger, { name: 'Ada Lovelace', email: 'ada@example.com', date: '2024-03-04T05:06:07.000+00:00', timestamp: at.getTime() / 1000 });
  assert.equal(byName.get('refs/tags/tree-tag')?.commit, null);
  assert.equal(byName.get('refs/tags/nested')?.commit, second);
  assert.deepEqual((await listRefs(repo, { type: 'branch' })).map((r) => r.name), ['feature/x', 'main']);
  assert.deepEqual((await listRefs(repo, { type: 'tag' })).length, 4);
});

test('getRef, resolveRef and resolveCommit', async () => {
  assert.equal((await getRef(repo, 'refs/heads/feature/x'))?.commit, first);
  assert.equal(await getRef(repo, 'refs/heads/feature'), null);
  assert.equal(await resolveRef(repo, 'refs/heads/main'), second);
  assert.equal(await resolveRef(repo, 'refs/heads/nothing'), null);
  assert.notEqual(await resolveRef(repo, 'refs/tags/v1.0'), second);
  assert.equal(await resolveCommit(repo, 'main'), second);
  assert.equal(await resolveCommit(repo, 'v1.0'), second);
  assert.equal(await resolveCommit(repo, 'main~1'), first);
  assert.equal(await resolveCommit(repo, second.slice(0, 10)), second);
  assert.equal(await resolveCommit(repo, 'main~5'), null);
  assert.equal(await resolveCommit(repo, 'nothing'), null);
  assert.equal(await resolveCommit(repo, 'tree-tag'), null);
});

test('isAncestor and hasBranches', async () => {
  assert.equal(await isAncestor(repo, first, second), true);
  assert.equal(await isAncestor(repo, second, first), false);
  assert.equal(await isAncestor(repo, second, second), true);
  assert.equal(await hasBranches(repo), true);
  const empty = path.join(root, 'empty.git');
  await createRepository(empty, { defaultBranch: 'main' });
  assert.equal(await hasBranches(empty), false);
});

test('updateRef and deleteRef compare and set', async () => {
  const ref = 'refs/heads/cas';
  await assert.rejects(updateRef(repo, ref, first, second), conflict);
  await updateRef(repo, ref, first, null);
  await assert.rejects(updateRef(repo, ref, second, null), conflict);
  await assert.rejects(updateRef(repo, ref, second, second), conflict);
  await updateRef(repo, ref, second, first);
  await assert.rejects(deleteRef(repo, ref, first), conflict);
  await deleteRef(repo, ref, second);
  assert.equal(await resolveRef(repo, ref), null);
  // A branch cannot sit under another's name.
  await assert.rejects(updateRef(repo, 'refs/heads/main/sub', first, null), conflict);
  await assert.rejects(updateRef(repo, 'refs/heads/x', ZERO_OID.replace(/0$/, '1')), (e: unknown) => e instanceof GitError && e.kind === 'failed');
});

test('updateRefs is all or none', async () => {
  await assert.rejects(
    updateRefs(repo, [
      { ref: 'refs/heads/one', newId: first, oldId: null },
      { ref: 'refs/heads/main', newId: first, oldId: first },
    ]),
    conflict,
  );
  assert.equal(await resolveRef(repo, 'refs/heads/one'), null);
  assert.equal(await resolveRef(repo, 'refs/heads/main'), second);
});

test('racing updates with the same old value: exactly one wins', async () => {
  const ref = 'refs/heads/race';
  await updateRef(repo, ref, first, null);
  for (let round = 0; round < 5; round++) {
    const old = (await resolveRef(repo, ref)) as string;
    const next = old === first ? second : first;
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => updateRef(repo, ref, next, old)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.ok(conflict(r.reason), String(r.reason));
    assert.equal(await resolveRef(repo, ref), next);
  }
});

test('racing creations of one ref: exactly one wins', async () => {
  const results = await Promise.allSettled([first, second, first, second].map((id) => updateRef(repo, 'refs/heads/created', id, null)));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
});
