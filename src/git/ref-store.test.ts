// Refs read from the ref files answer as git does: exact names (never git's shortening rules),
// loose over packed, writes and deletions seen at once, files that are no refs left out, and git
// asked for what the files do not settle (symbolic refs, another ref backend).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createCommit } from './commits.ts';
import { anyStoredRefUnder, storedHead, storedRef, storedRefsUnder } from './ref-store.ts';
import { hasBranches, resolveRef, updateRef } from './refs.ts';
import { createRepository, readDefaultBranch } from './repository.ts';
import { runGit } from './run.ts';

let root: string;
let repo: string;
let first: string;
let second: string;
const author = { name: 'Ada', email: 'ada@example.com' };

/** What git itself answers for a ref. */
const gitSays = async (ref: string) => {
  const out = (await runGit(repo, ['for-each-ref', '--format=%(refname) %(objectname)', '--', ref])).stdout.toString();
  return out.split('\n').find((line) => line.startsWith(`${ref} `))?.slice(ref.length + 1) ?? null;
};

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-ref-store-'));
  repo = path.join(root, 'repo.git');
  first = (await createRepository(repo, { defaultBranch: 'main', readme: { content: '# r\n', message: 'one', author } })) as string;
  second = (await createCommit(repo, { branch: 'main', actions: [{ action: 'create', path: 'b', content: 'b' }], message: 'two', author })).id;
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('exact names: a branch named like a tag ref does not answer for the tag, as git would by its shortening rules', async () => {
  await updateRef(repo, 'refs/heads/refs/tags/v9', first, null);
  assert.equal((await runGit(repo, ['rev-parse', '--verify', '--quiet', 'refs/tags/v9'])).stdout.toString().trim(), first);
  assert.equal(await resolveRef(repo, 'refs/tags/v9'), null);
  assert.equal(await resolveRef(repo, 'refs/heads/refs/tags/v9'), first);
});

test('loose over packed; packed alone; deleted from both; every answer the same as git', async () => {
  await updateRef(repo, 'refs/heads/a', first, null);
  await updateRef(repo, 'refs/heads/b/c', first, null);
  await runGit(repo, ['pack-refs', '--all']);
  assert.equal(await resolveRef(repo, 'refs/heads/a'), first);
  await updateRef(repo, 'refs/heads/a', second, first);
  assert.equal(await resolveRef(repo, 'refs/heads/a'), second);
  await runGit(repo, ['update-ref', '-d', 'refs/heads/b/c']);
  for (const ref of ['refs/heads/a', 'refs/heads/b/c', 'refs/heads/b', 'refs/heads/main', 'refs/heads/none']) assert.equal(await resolveRef(repo, ref), await gitSays(ref), ref);
  assert.equal(storedRefsUnder(repo, 'refs/heads/')?.get('refs/heads/a'), second);
});

test('files that are no refs are left out: a lock being written, a dot file', async () => {
  const empty = path.join(root, 'empty.git');
  await createRepository(empty, { defaultBranch: 'main' });
  fs.writeFileSync(path.join(empty, 'refs/heads/new.lock'), `${first}\n`);
  fs.writeFileSync(path.join(empty, 'refs/heads/.hidden'), `${first}\n`);
  assert.equal(anyStoredRefUnder(empty, 'refs/heads/'), false);
  assert.equal(await hasBranches(empty), false);
  assert.equal(await resolveRef(empty, 'refs/heads/new.lock').catch(() => 'refused'), 'refused');
});

test('a symbolic ref, content git calls broken, another ref backend: git is asked', async () => {
  await runGit(repo, ['symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
  assert.equal(storedRef(repo, 'refs/heads/alias'), undefined);
  assert.equal(await resolveRef(repo, 'refs/heads/alias'), await gitSays('refs/heads/alias'));
  assert.equal(storedRefsUnder(repo, 'refs/heads/'), undefined);
  await runGit(repo, ['symbolic-ref', '--delete', 'refs/heads/alias']);
  fs.mkdirSync(path.join(repo, 'reftable'));
  try {
    assert.equal(storedRef(repo, 'refs/heads/main'), undefined);
    assert.equal(await resolveRef(repo, 'refs/heads/main'), second);
  } finally {
    fs.rmdirSync(path.join(repo, 'reftable'));
  }
});

test('HEAD: the branch it names, existing or not; null when detached', async () => {
  assert.equal(storedHead(repo), 'refs/heads/main');
  await runGit(repo, ['symbolic-ref', 'HEAD', 'refs/heads/later']);
  assert.equal(await readDefaultBranch(repo), 'later');
  await runGit(repo, ['update-ref', '--no-deref', 'HEAD', first]);
  assert.equal(await readDefaultBranch(repo), null);
  await runGit(repo, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  assert.equal(await readDefaultBranch(repo), 'main');
});
