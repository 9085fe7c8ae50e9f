// `quarry runner`'s command line: its flags, and the reasons it stops with.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { TestApp } from '../harness.ts';
import { listeningTestApp } from '../listening.ts';
import { MAIN } from '../server-process.ts';

let t: TestApp;
let host: string;
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-runner-cli-'));

before(async () => {
  ({ t, host } = await listeningTestApp());
});
after(async () => {
  await t?.close();
  fs.rmSync(workDir, { recursive: true, force: true });
});

function runner(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'runner', '--work-dir', workDir, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('--help lists the flags', async () => {
  const res = await runner(['--help']);
  assert.equal(res.code, 0);
  for (const flag of ['--url', '--registration-token', '--token', '--concurrent', '--tag-list', '--run-untagged', '--sandbox', '--shutdown-timeout']) assert.ok(res.stdout.includes(flag), flag);
});

test('bad flags stop it with a one-line reason', async () => {
  for (const [args, message] of [
    [['--concurrent', '0'], 'quarry runner: --concurrent must be a whole number from 1 to 64'],
    [['--concurrent', 'many'], 'quarry runner: --concurrent must be a whole number from 1 to 64'],
    [['--sandbox', 'docker'], 'quarry runner: --sandbox must be none or bwrap'],
    [['--url', 'not a url'], 'quarry runner: --url is not a URL: not a url'],
    [['--shutdown-timeout=-1'], 'quarry runner: --shutdown-timeout must be a number of seconds'],
  ] as const) {
    const res = await runner([...args]);
    assert.equal(res.code, 2, args.join(' '));
    assert.equal(res.stderr.trim(), message);
  }
  const unknown = await runner(['--bogus']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^quarry runner: Unknown option '--bogus'/);
});

test('without a usable token it says what to give it', async () => {
  const none = await runner(['--url', host]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no runner token: give a registration token/);
  const unknown = await runner(['--url', host, '--token', 'glrt-not-a-runner-token']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /the server does not know this runner token/);
  const refused = await runner(['--url', host, '--registration-token', 'not-the-registration-token']);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /registration refused \(403\)/);
});
