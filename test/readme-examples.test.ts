// The README's integration-test examples, run as they are written there: the seed document, the
// Node test-runner file and the pytest fixture with its tests, each taken from the block after
// its `<!-- example: NAME -->` marker, against bin/quarry.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..');
const PYTHON = '/usr/bin/python3';
let dir: string;
let env: Record<string, string>;

/** NAME → the code block after its marker. */
function examples(): Map<string, string> {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  return new Map([...readme.matchAll(/<!-- example: (\S+) -->\n```\w*\n([\s\S]*?)```/g)].map(([, name, code]) => [name, code]));
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-readme-'));
  for (const [name, code] of examples()) fs.writeFileSync(path.join(dir, name), code);
  env = { ...process.env, QUARRY_BIN: path.join(ROOT, 'bin/quarry') } as Record<string, string>;
  // The examples start their runners afresh, not as children of this one.
  delete env.NODE_TEST_CONTEXT;
  for (const name of Object.keys(env)) if (name.startsWith('QUARRY_') && name !== 'QUARRY_BIN') delete env[name];
});

after(() => fs.rmSync(dir, { recursive: true, force: true }));

function run(command: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    // A run that hangs is killed rather than holding the suite.
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (status) => resolve({ status, output }));
  });
}

test('the README has the four examples', () => {
  assert.deepEqual([...examples().keys()].sort(), ['conftest.py', 'quarry.test.mjs', 'seed.yaml', 'test_widgets.py']);
});

test("the README's Node test-runner example passes", async () => {
  const result = await run(process.execPath, ['--test', '--test-reporter=spec', 'quarry.test.mjs']);
  assert.equal(result.status, 0, result.output);
  assert.match(result.output, /pass 3/);
});

const pytestMissing = spawnSync(PYTHON, ['-c', 'import pytest, gitlab, requests'], { encoding: 'utf8', timeout: 60_000 }).status !== 0;

test("the README's pytest example passes", { skip: pytestMissing ? 'pytest, python-gitlab or requests is not installed for /usr/bin/python3 (Debian: python3-pytest python3-gitlab)' : false }, async () => {
  const result = await run(PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'test_widgets.py']);
  assert.equal(result.status, 0, result.output);
  assert.match(result.output, /4 passed/);
});
