// Counting a repository for the project statistics.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { createRepository } from './repository.ts';
import { commitCount, repositorySize } from './statistics.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-statistics-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test("a branch's commits, none for a branch that does not exist, and the blocks on disk", async () => {
  const dir = path.join(root, 'counted.git');
  await createRepository(dir, { defaultBranch: 'main', readme: { content: '# Counted', message: 'Initial commit', author: { name: 'Ada', email: 'ada@example.com' } } });
  assert.equal(await commitCount(dir, 'main'), 1);
  assert.equal(await commitCount(dir, 'missing'), 0);
  await assert.rejects(commitCount(dir, '-bad'), /invalid branch name/);
  const size = await repositorySize(dir);
  assert.ok(size > 0 && size % 512 === 0);
  fs.writeFileSync(path.join(dir, 'big'), Buffer.alloc(100_000));
  assert.ok((await repositorySize(dir)) >= size + 100_000);
});
