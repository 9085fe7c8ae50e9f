// Refs with their commits in one process, reachability between refs and commits, and tag creation
// with its race.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCommit } from './commits.ts';
import { branchesContaining, reachedFrom } from './reachability.ts';
import { getDetailedRefs, listDetailedRefs } from './ref-details.ts';
import { resolveRef, updateRef } from './refs.ts';
import { createRepository } from './repository.ts';
import { GitError, runGit } from './run.ts';
import { identityEnv } from './signature.ts';
import { createTag } from './tags.ts';

let root: string;
let repo: string;
let first: string;
let second: string;
const author = { name: 'Ada Lovelace', email: 'ada@example.com' };
const at = new Date('2024-03-04T05:06:07.000Z');

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-ref-details-'));
  repo = path.join(root, 'repo.git');
  first = (await createRepository(repo, { defaultBranch: 'main', readme: { content: '# r\n', message: 'Initial commit', author, date: at } })) as string;
  const message = 'Add b\n\nWhy b.\n\nSigned-off-by: Ada <ada@example.com>\nCo-authored-by: Bob\n  Builder <bob@example.com>\n';
  second = (await createCommit(repo, { branch: 'main', actions: [{ action: 'create', path: 'b.txt', content: 'b' }], message, author, date: at })).id;
  await updateRef(repo, 'refs/heads/feature/x', first, null);
  await runGit(repo, ['tag', '-a', '-m', 'Release 1.0', '--', 'v1.0', second], { env: identityEnv('COMMITTER', author, at) });
  await runGit(repo, ['tag', '-a', '-m', 'Outer', '--', 'nested', 'v1.0'], { env: identityEnv('COMMITTER', author, at) });
  const tree = (await runGit(repo, ['rev-parse', `${second}^{tree}`])).stdout.toString().trim();
  await runGit(repo, ['tag', '--', 'tree-tag', tree]);
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

describe('listDetailedRefs / getDetailedRefs', () => {
  test('branches by name, each with its whole commit and trailers', async () => {
    const branches = await listDetailedRefs(repo, 'branch');
    assert.deepEqual(
      branches.map((b) => [b.ref, b.name, b.commit]),
      [
        ['refs/heads/feature/x', 'feature/x', first],
        ['refs/heads/main', 'main', second],
      ],
    );
    const main = branches[1];
    assert.equal(main.tag, null);
    assert.deepEqual(main.details, {
      id: second,
      tree: (await runGit(repo, ['rev-parse', `${second}^{tree}`])).stdout.toString().trim(),
      parents: [first],
      author: { ...author, date: '2024-03-04T05:06:07.000+00:00', timestamp: at.getTime() / 1000 },
      committer: { ...author, date: '2024-03-04T05:06:07.000+00:00', timestamp: at.getTime() / 1000 },
      message: 'Add b\n\nWhy b.\n\nSigned-off-by: Ada <ada@example.com>\nCo-authored-by: Bob\n  Builder <bob@example.com>\n',
      trailers: { 'Signed-off-by': 'Ada <ada@example.com>', 'Co-authored-by': 'Bob Builder <bob@example.com>' },
    });
    assert.deepEqual(branches[0].details?.trailers, {});
  });

  test('tags: annotated ones with their object, message and the commit behind them; nested ones peeled all the way; a tag of a tree has no commit', async () => {
    const tags = new Map((await listDetailedRefs(repo, 'tag')).map((r) => [r.name, r]));
    assert.deepEqual([...tags.keys()], ['nested', 'tree-tag', 'v1.0']);
    const v1 = tags.get('v1.0');
    assert.ok(v1?.tag && v1.details);
    assert.notEqual(v1.target, second);
    assert.equal(v1.commit, second);
    assert.equal(v1.tag.message, 'Release 1.0\n');
    assert.equal(v1.tag.tagger?.name, 'Ada Lovelace');
    assert.equal(v1.details.id, second);
    assert.equal(v1.details.trailers['Signed-off-by'], 'Ada <ada@example.com>');
    const nested = tags.get('nested');
    assert.equal(nested?.commit, second);
    assert.equal(nested?.details?.message.startsWith('Add b'), true);
    assert.equal(nested?.tag?.message, 'Outer\n');
    const treeTag = tags.get('tree-tag');
    assert.equal(treeTag?.commit, null);
    assert.equal(treeTag?.details, null);
  });

  test('getDetailedRefs finds exact names only, and refuses names git would not accept', async () => {
    const found = await getDetailedRefs(repo, ['refs/heads/feature', 'refs/heads/main', 'refs/heads/nope']);
    assert.deepEqual([...found.keys()], ['refs/heads/main']);
    assert.deepEqual([...(await getDetailedRefs(repo, [])).keys()], []);
    for (const bad of ['refs/heads/a..b', '--upload-pack=x', 'refs/heads/x\0y', 'main']) {
      await assert.rejects(getDetailedRefs(repo, [bad]), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
    }
  });
});

describe('refs read without git', () => {
  test('the same refs, objects, messages and trailers as for-each-ref shows, loose or packed, odd messages and tags included', async () => {
    const odd = path.join(root, 'odd.git');
    await createRepository(odd, { defaultBranch: 'main', readme: { content: '# o\n', message: 'Initial commit', author, date: at } });
    const env = { ...identityEnv('AUTHOR', author, at), ...identityEnv('COMMITTER', author, at) };
    const head = (await resolveRef(odd, 'refs/heads/main')) as string;
    const tree = (await runGit(odd, ['rev-parse', `${head}^{tree}`])).stdout.toString().trim();
    const messages = ['\n\nLeading blank lines\n\nKey: v\n', 'Title\n\nBody\n\nSigned-off-by: A <a@example.com>\nFolded: one\n  two\n', 'No newline at the end'];
    for (const [i, message] of messages.entries()) {
      const id = (await runGit(odd, ['commit-tree', tree, '-p', head], { env, input: message })).stdout.toString().trim();
      await updateRef(odd, `refs/heads/odd/${i}`, id, null);
      await runGit(odd, ['tag', '-a', '-m', `Tag ${i}\n\nReviewed-by: R`, '--', `t${i}`, id], { env });
    }
    const blob = (await runGit(odd, ['rev-parse', `${head}:README.md`])).stdout.toString().trim();
    await runGit(odd, ['tag', '--', 'blob-tag', blob]);
    await runGit(odd, ['tag', '-a', '-m', 'Outer', '--', 'outer', 't1'], { env });
    await runGit(odd, ['pack-refs', '--all']);
    await updateRef(odd, 'refs/heads/odd/0', head);
    await updateRef(odd, 'refs/heads/Über', head, null);
    const withoutGit = [await listDetailedRefs(odd, 'branch'), await listDetailedRefs(odd, 'tag')];
    const exact = await getDetailedRefs(odd, ['refs/heads/odd/1', 'refs/tags/outer', 'refs/tags/none']);
    // A ref backend the ref files do not describe: every read goes to git.
    fs.mkdirSync(path.join(odd, 'reftable'));
    try {
      assert.deepEqual(withoutGit, [await listDetailedRefs(odd, 'branch'), await listDetailedRefs(odd, 'tag')]);
      assert.deepEqual(exact, await getDetailedRefs(odd, ['refs/heads/odd/1', 'refs/tags/outer', 'refs/tags/none']));
    } finally {
      fs.rmdirSync(path.join(odd, 'reftable'));
    }
    assert.equal(withoutGit[0].length, 5);
    assert.equal(withoutGit[1].length, 5);
  });
});

describe('reachability', () => {
  test('reachedFrom: the commits a commit reaches, its own included; asked again, no walk', async () => {
    assert.deepEqual(await reachedFrom(repo, second, [first, second]), new Set([first, second]));
    assert.deepEqual(await reachedFrom(repo, first, [first, second]), new Set([first]));
    // Known pairs answer even where git could not be asked any more.
    const moved = `${repo}.moved`;
    fs.renameSync(repo, moved);
    fs.mkdirSync(repo);
    try {
      await assert.rejects(reachedFrom(repo, first, [second]), GitError);
    } finally {
      fs.rmdirSync(repo);
      fs.renameSync(moved, repo);
    }
    assert.deepEqual(await reachedFrom(repo, first, [second, first]), new Set([first]));
    await assert.rejects(reachedFrom(repo, '--all', [first]), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
  });

  test('branchesContaining: the branches a commit is on', async () => {
    assert.deepEqual([...(await branchesContaining(repo, first)).keys()], ['refs/heads/feature/x', 'refs/heads/main']);
    assert.deepEqual([...(await branchesContaining(repo, second)).keys()], ['refs/heads/main']);
  });
});

describe('createTag', () => {
  test('lightweight: the ref names the commit', async () => {
    assert.equal(await createTag(repo, { name: 'light', commit: first, tagger: author }), first);
    assert.equal(await resolveRef(repo, 'refs/tags/light'), first);
  });

  test('annotated: a tag object with the tagger, the time and the message as given', async () => {
    const target = await createTag(repo, { name: 'release/2.0', commit: second, message: 'Two\n\nNotes', tagger: { name: 'Eve <x>\nInjected', email: 'e<v>e@example.com' }, date: at });
    assert.notEqual(target, second);
    const raw = (await runGit(repo, ['cat-file', 'tag', target])).stdout.toString();
    assert.equal(raw, `object ${second}\ntype commit\ntag release/2.0\ntagger Eve xInjected <eve@example.com> ${at.getTime() / 1000} +0000\n\nTwo\n\nNotes`);
    const [tag] = (await listDetailedRefs(repo, 'tag')).filter((r) => r.name === 'release/2.0');
    assert.equal(tag.tag?.message, 'Two\n\nNotes');
    assert.equal(tag.commit, second);
  });

  test('of two creations of one tag exactly one wins; the other is a conflict', async () => {
    const results = await Promise.allSettled([
      createTag(repo, { name: 'race', commit: first, message: 'A', tagger: author }),
      createTag(repo, { name: 'race', commit: second, message: 'B', tagger: author }),
      createTag(repo, { name: 'race', commit: second, tagger: author }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as GitError).kind, 'conflict');
  });

  test('refuses names git or the platform would not accept before running git', async () => {
    for (const name of ['-x', 'a..b', 'refs/heads/x', 'HEAD', 'a b', '']) {
      await assert.rejects(createTag(repo, { name, commit: first, tagger: author }), (e: unknown) => e instanceof GitError && e.kind === 'invalid');
    }
  });
});
