// The last commits of paths found in one walk agree with `git rev-list -1 <commit> -- <path>`, on
// a history with merges that bring a path from either side, an evil merge, a file deleted and
// added again, a mode change and a file that becomes a directory.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { lastCommitForPath } from './history.ts';
import { lastCommitsForPaths, lastCommitsForTree } from './last-commits.ts';
import { objectCache } from './object-cache.ts';
import { openRepository } from './objects.ts';
import { closeReaders } from './reader-pool.ts';
import { runGit } from './run.ts';

let root: string;
let repo: string;

const PATHS = ['a.txt', 'b.txt', 'dir', 'dir/x.txt', 'dir/y.txt', 'dir/sub/z.txt', 'run.sh', 'thing', 'thing/inner.txt', 'never.txt', 'gone.txt'];

/** A fast-import stream: two branches that change overlapping paths and merge twice, one merge changing a file itself. */
function history(): string {
  let mark = 0;
  let time = 1_700_000_000;
  const commit = (ref: string, lines: string[], parents: string[] = []) => {
    mark += 1;
    time += 60;
    const from = parents.length > 0 ? `from ${parents[0]}\n${parents.slice(1).map((p) => `merge ${p}\n`).join('')}` : '';
    const message = `c${mark}`;
    return [`commit ${ref}\nmark :${mark}\ncommitter T <t@example.com> ${time} +0000\ndata ${message.length}\n${message}\n${from}${lines.join('\n')}\n`, `:${mark}`] as const;
  };
  const file = (p: string, content: string, mode = '100644') => `M ${mode} inline ${p}\ndata ${Buffer.byteLength(content)}\n${content}`;
  const parts: string[] = [];
  const add = ([text, id]: readonly [string, string]) => (parts.push(text), id);
  const c1 = add(commit('refs/heads/main', [file('a.txt', 'a1'), file('dir/x.txt', 'x1'), file('gone.txt', 'g'), file('thing', 't')]));
  const c2 = add(commit('refs/heads/main', [file('b.txt', 'b1'), file('dir/sub/z.txt', 'z1')], [c1]));
  const s1 = add(commit('refs/heads/side', [file('dir/y.txt', 'y1'), file('a.txt', 'a-side')], [c2]));
  const c3 = add(commit('refs/heads/main', [file('dir/x.txt', 'x2'), 'D gone.txt'], [c2]));
  const s2 = add(commit('refs/heads/side', [file('run.sh', 'echo', '100755'), 'D thing', file('thing/inner.txt', 'i')], [s1]));
  // Takes a.txt from the side, x.txt from main, and changes b.txt itself (evil).
  const m1 = add(commit('refs/heads/main', ['deleteall', file('a.txt', 'a-side'), file('b.txt', 'b-merge'), file('dir/x.txt', 'x2'), file('dir/y.txt', 'y1'), file('dir/sub/z.txt', 'z1'), file('run.sh', 'echo', '100755'), file('thing/inner.txt', 'i')], [c3, s2]));
  const c4 = add(commit('refs/heads/main', [file('run.sh', 'echo'), file('gone.txt', 'back')], [m1]));
  const s3 = add(commit('refs/heads/side', [file('dir/y.txt', 'y2')], [s2]));
  // The side's y.txt; everything else as on main.
  add(commit('refs/heads/main', [file('dir/y.txt', 'y2')], [c4, s3]));
  return parts.join('');
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-last-commits-'));
  repo = path.join(root, 'repo.git');
  await runGit(null, ['init', '--bare', '--quiet', repo]);
  await runGit(repo, ['fast-import', '--quiet'], { input: history() });
});
after(async () => {
  await closeReaders();
  fs.rmSync(root, { recursive: true, force: true });
});

async function revList(commit: string, p: string): Promise<string | null> {
  return (await runGit(repo, ['rev-list', '--max-count=1', commit, '--', p])).stdout.toString().trim() || null;
}

test('every path from every commit: the walk finds what rev-list finds', async () => {
  const commits = (await runGit(repo, ['rev-list', '--all'])).stdout.toString().trim().split('\n');
  for (const commit of commits) {
    objectCache.clear();
    const found = await lastCommitsForPaths(openRepository(repo), commit, PATHS);
    for (const p of PATHS) assert.equal(found.get(p), await revList(commit, p), `${p} as of ${commit}`);
  }
});

test('one path at a time, through the cache and from a branch name, agrees too', async () => {
  for (const p of PATHS) {
    const expected = await revList('main', p);
    assert.equal(await lastCommitForPath(repo, 'main', p), expected);
    assert.equal(await lastCommitForPath(repo, 'main', p), expected);
  }
  await assert.rejects(lastCommitForPath(repo, 'nothing', 'a.txt'));
});

test('a directory: the last commit of each entry, in one walk; null for what is not a directory', async () => {
  const main = (await runGit(repo, ['rev-parse', 'main'])).stdout.toString().trim();
  const found = await lastCommitsForTree(repo, main, 'dir');
  assert.deepEqual([...(found ?? [])].sort(), [
    ['dir/sub', await revList(main, 'dir/sub')],
    ['dir/x.txt', await revList(main, 'dir/x.txt')],
    ['dir/y.txt', await revList(main, 'dir/y.txt')],
  ]);
  assert.equal(await lastCommitsForTree(repo, main, 'a.txt'), null);
  assert.equal((await lastCommitsForTree(repo, main, ''))?.size, 6);
});

test('a walk longer than its bound leaves the rest to rev-list, from where it stopped', async () => {
  const long = path.join(root, 'long.git');
  await runGit(null, ['init', '--bare', '--quiet', long]);
  const commits = Array.from({ length: 1_200 }, (_, i) => {
    const files = i === 0 ? 'M 100644 inline old.txt\ndata 3\nold\n' : '';
    return `commit refs/heads/main\ncommitter T <t@example.com> ${1_700_000_000 + i} +0000\ndata 1\nc\n${files}M 100644 inline busy.txt\ndata ${String(i).length}\n${i}\n`;
  });
  await runGit(long, ['fast-import', '--quiet'], { input: commits.join('') });
  const head = (await runGit(long, ['rev-parse', 'main'])).stdout.toString().trim();
  const expected = async (p: string) => (await runGit(long, ['rev-list', '--max-count=1', head, '--', p])).stdout.toString().trim() || null;
  const found = await lastCommitsForPaths(openRepository(long), head, ['old.txt', 'busy.txt', 'never.txt']);
  for (const p of ['old.txt', 'busy.txt', 'never.txt']) assert.equal(found.get(p), await expected(p), p);
  assert.notEqual(found.get('old.txt'), null);
});
