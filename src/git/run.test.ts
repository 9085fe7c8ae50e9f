// The git runner: time limits, output limits, a pinned environment, and user text that never
// becomes an option.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createCommit, readBlob, readTree } from './commits.ts';
import { getRef, resolveCommit, updateRef } from './refs.ts';
import { createRepository } from './repository.ts';
import { GitError, runGit, spawnGit } from './run.ts';

let root: string;
let repo: string;
const author = { name: 'Ada', email: 'ada@example.com' };

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-run-'));
  repo = path.join(root, 'repo.git');
  await createRepository(repo, { defaultBranch: 'main', readme: { content: '# x\n', message: 'Initial commit', author } });
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Whether a process is still running (a zombie waiting for its reaper is not). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** A git alias that records its shell's pid, then becomes a long sleep. */
function napArgs(pidFile: string): string[] {
  return ['-c', `alias.nap=!echo $$ > ${pidFile}; exec sleep 30`, 'nap'];
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 20));
}

describe('runGit', () => {
  test('answers with standard output, takes standard input', async () => {
    const { stdout, exitCode } = await runGit(repo, ['hash-object', '--stdin'], { input: 'hello\n' });
    assert.equal(exitCode, 0);
    assert.equal(stdout.toString().trim(), 'ce013625030ba8dba906f756967f9e9ca394464a');
  });

  test('a failure is a GitError with the exit status and standard error; chosen statuses are answers', async () => {
    await assert.rejects(runGit(repo, ['cat-file', 'blob', '1111111111111111111111111111111111111111']), (e: unknown) => {
      assert.ok(e instanceof GitError);
      assert.equal(e.kind, 'failed');
      assert.equal(e.exitCode, 128);
      assert.match(e.stderr, /bad file/);
      return true;
    });
    const { exitCode } = await runGit(repo, ['rev-parse', '--verify', '--quiet', 'nothing'], { okExitCodes: [1] });
    assert.equal(exitCode, 1);
  });

  test('the time limit kills git and what it started', async () => {
    const pidFile = path.join(root, 'nap-run.pid');
    const started = Date.now();
    await assert.rejects(runGit(repo, napArgs(pidFile), { timeoutMs: 300 }), (e: unknown) => e instanceof GitError && e.kind === 'timeout');
    assert.ok(Date.now() - started < 2000);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(pid));
    assert.equal(alive(pid), false);
  });

  test('output beyond maxOutput fails the call', async () => {
    const blob = (await runGit(repo, ['hash-object', '-w', '--stdin'], { input: Buffer.alloc(1 << 20, 'x') })).stdout.toString().trim();
    await assert.rejects(runGit(repo, ['cat-file', 'blob', blob], { maxOutput: 1000 }), (e: unknown) => e instanceof GitError && e.kind === 'output_limit');
    assert.equal((await runGit(repo, ['cat-file', 'blob', blob])).stdout.length, 1 << 20);
  });

  test('no inherited GIT_* variable and no user or system configuration reaches git', async () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        GIT_DIR: '/nonexistent',
        GIT_CONFIG_PARAMETERS: "'alias.injected'='!touch /tmp/quarry-injected'",
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.hooksPath',
        GIT_CONFIG_VALUE_0: '/tmp',
        GIT_EXEC_PATH: '/nonexistent',
      });
      const { stdout } = await runGit(repo, ['config', '--list', '--show-origin']);
      const origins = new Set(stdout.toString().trim().split('\n').map((line) => line.split('\t')[0]));
      assert.deepEqual([...origins], [`file:${repo}/config`]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  });
});

describe('spawnGit', () => {
  test('streams standard input and output', async () => {
    const git = spawnGit(repo, ['hash-object', '--stdin']);
    const chunks: Buffer[] = [];
    git.stdout.on('data', (c: Buffer) => chunks.push(c));
    git.stdin.end('hello\n');
    const exit = await git.done;
    assert.deepEqual(exit, { exitCode: 0, stderr: '', timedOut: false });
    assert.equal(Buffer.concat(chunks).toString().trim(), 'ce013625030ba8dba906f756967f9e9ca394464a');
  });

  test('the same time limit applies', async () => {
    const pidFile = path.join(root, 'nap-spawn.pid');
    const git = spawnGit(repo, napArgs(pidFile), { timeoutMs: 300 });
    git.stdout.resume();
    const exit = await git.done;
    assert.equal(exit.timedOut, true);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    await waitFor(() => !alive(pid));
    assert.equal(alive(pid), false);
  });
});

describe('option injection', () => {
  const marker = () => path.join(root, 'pwned');
  const evil = () => `--upload-pack=touch ${marker()}`;

  test('a ref or revision shaped like an option is refused before git runs', async () => {
    const refused = (e: unknown) => e instanceof GitError && e.kind === 'invalid';
    await assert.rejects(resolveCommit(repo, evil()), refused);
    await assert.rejects(getRef(repo, `refs/heads/${evil()}`), refused);
    await assert.rejects(updateRef(repo, evil(), '1111111111111111111111111111111111111111'), refused);
    await assert.rejects(createCommit(repo, { branch: evil(), actions: [], message: 'm', author }), refused);
    await assert.rejects(readTree(repo, evil()), refused);
    assert.equal(fs.existsSync(marker()), false);
  });

  test('a file path shaped like an option stays a path', async () => {
    const name = `--output=${marker()}`;
    await createCommit(repo, { branch: 'main', actions: [{ action: 'create', path: name, content: 'x' }], message: 'odd name', author });
    const tree = (await readTree(repo, 'main', '', { recursive: true })) ?? [];
    assert.ok(tree.some((e) => e.path === name));
    assert.equal((await readBlob(repo, 'main', name))?.content.toString(), 'x');
    assert.equal(await readBlob(repo, 'main', evil()), null);
    assert.equal(fs.existsSync(marker()), false);
  });
});
