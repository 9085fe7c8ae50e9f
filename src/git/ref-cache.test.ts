// The ref read cache: a read is kept while the refs of its type stay the same, and any change to
// them, loose or packed, at any depth, is seen; changes too recent to show in timestamps are
// never cached.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { readRefsCached } from './ref-cache.ts';
import { deleteRef, updateRef } from './refs.ts';
import { createRepository } from './repository.ts';
import { runGit } from './run.ts';

let root: string;
let repo: string;
let head: string;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-ref-cache-'));
  repo = path.join(root, 'repo.git');
  head = (await createRepository(repo, { defaultBranch: 'main', readme: { content: '# r\n', message: 'Initial commit', author: { name: 'A', email: 'a@example.com' } } })) as string;
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

let ages = 0;

/** Dates the ref files and directories changed lately back in the past, as if the change were old. */
function age(): void {
  const past = new Date(Date.now() - 60_000 - ++ages * 1000);
  const walk = (p: string) => {
    if (Date.now() - fs.statSync(p).mtimeMs < 30_000) fs.utimesSync(p, past, past);
    if (fs.statSync(p).isDirectory()) for (const child of fs.readdirSync(p)) walk(path.join(p, child));
  };
  walk(path.join(repo, 'refs'));
  if (fs.existsSync(path.join(repo, 'packed-refs'))) walk(path.join(repo, 'packed-refs'));
}

/** A read that counts how often it runs. */
function counter(key: string, type: 'branch' | 'tag' = 'branch') {
  let runs = 0;
  return {
    read: () => readRefsCached(repo, type, key, async () => ++runs),
    get runs() {
      return runs;
    },
  };
}

test('kept while nothing changes; concurrent readers share one read', async () => {
  age();
  const c = counter('same');
  assert.deepEqual(await Promise.all([c.read(), c.read()]), [1, 1]);
  assert.equal(await c.read(), 1);
  assert.equal(c.runs, 1);
});

test('a change too recent to be sure of is never cached; once it is old, the read is kept again', async () => {
  age();
  const c = counter('recent');
  await c.read();
  await updateRef(repo, 'refs/heads/fresh', head);
  assert.equal(await c.read(), 2);
  assert.equal(await c.read(), 3);
  age();
  assert.equal(await c.read(), 4);
  assert.equal(await c.read(), 4);
});

test('changes at any depth, deletions and packing are all seen; tags and branches apart', async () => {
  const branches = counter('depth');
  const tags = counter('depth', 'tag');
  const changes = [
    () => updateRef(repo, 'refs/heads/a/b/c', head),
    () => updateRef(repo, 'refs/heads/a/b/d', head),
    () => deleteRef(repo, 'refs/heads/a/b/c'),
    () => runGit(repo, ['pack-refs', '--all']).then(() => undefined),
    () => deleteRef(repo, 'refs/heads/a/b/d'),
  ];
  age();
  await branches.read();
  await tags.read();
  for (const change of changes) {
    const before = branches.runs;
    await change();
    age();
    await branches.read();
    await branches.read();
    assert.equal(branches.runs, before + 1);
  }
  // No tag changed, but packing rewrote packed-refs, which holds both.
  await tags.read();
  assert.equal(tags.runs, 2);
  await updateRef(repo, 'refs/heads/only-a-branch', head);
  age();
  await tags.read();
  assert.equal(tags.runs, 2);
});

test('a failed read is not kept', async () => {
  age();
  let runs = 0;
  const failing = () =>
    readRefsCached(repo, 'branch', 'failing', async () => {
      runs += 1;
      if (runs === 1) throw new Error('boom');
      return runs;
    });
  await assert.rejects(failing(), /boom/);
  assert.equal(await failing(), 2);
  assert.equal(await failing(), 2);
});
