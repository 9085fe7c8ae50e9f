import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { expandValue, jobEnvironment, shellScript } from './job-script.ts';

test('values expand $VAR, ${VAR} and $$ as the runner does; unknown variables are empty', () => {
  const vars = new Map([['A', 'one'], ['B', 'two']]);
  assert.equal(expandValue('$A-${B}-$$A-$MISSING-${A}x', (k) => vars.get(k)), 'one-two-$A--onex');
});

test('the environment: later variables win, raw ones stay as written, files hold file variables, the host keeps only its basics', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-env-'));
  process.env.QUARRY_SECRET_OF_THE_HOST = 'x';
  try {
    const env = await jobEnvironment(
      [
        { key: 'A', value: 'first' },
        { key: 'A', value: 'second' },
        { key: 'REF', value: 'is $A' },
        { key: 'RAW', value: 'is $A', raw: true },
        { key: 'CERT', value: 'line1\nline2 $A', file: true },
      ],
      [{ key: 'CI_PROJECT_DIR', value: '/builds/x' }],
      dir,
    );
    assert.equal(env.A, 'second');
    assert.equal(env.REF, 'is second');
    assert.equal(env.RAW, 'is $A');
    assert.equal(fs.readFileSync(env.CERT as string, 'utf8'), 'line1\nline2 second');
    assert.equal(fs.statSync(env.CERT as string).mode & 0o777, 0o600);
    assert.equal(env.CI_PROJECT_DIR, '/builds/x');
    assert.equal(env.QUARRY_SECRET_OF_THE_HOST, undefined);
    assert.equal(env.PATH, process.env.PATH);
  } finally {
    delete process.env.QUARRY_SECRET_OF_THE_HOST;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the script echoes each command, stops at the first failure and keeps quotes intact', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-script-'));
  try {
    const file = path.join(dir, 'script.sh');
    fs.writeFileSync(file, shellScript(["echo 'it''s' \"$0\" | tr a-z A-Z", 'false | true', 'pwd', 'exit 4', 'echo never'], dir));
    let result: { status: number; out: string };
    try {
      result = { status: 0, out: execFileSync('bash', ['--noprofile', '--norc', file], { encoding: 'utf8' }) };
    } catch (error) {
      const e = error as { status: number; stdout: string };
      result = { status: e.status, out: e.stdout };
    }
    // pipefail: `false | true` fails the script.
    assert.equal(result.status, 1);
    assert.match(result.out, /\x1b\[32;1m\$ echo 'it''s' "\$0" \| tr a-z A-Z\x1b\[0;m\nITS /);
    assert.doesNotMatch(result.out, /never/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a multi-line command is shown by its first line', () => {
  assert.match(shellScript(['if true; then\n  echo yes\nfi'], '/x'), /\$ if true; then # collapsed multi-line command/);
});
