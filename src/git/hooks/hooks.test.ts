// The hooks receive-pack runs: their input, the files written, and pre-receive running a script.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ZERO_OID } from '../args.ts';
import { PUSH_DIR_ENV, REF_UPDATES_FILE, parseRefLines, writeHooks } from './hooks.ts';

let root: string;
before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "quarry-hooks-it's-"));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

const A = 'a'.repeat(40);

test('hook input: "<old> <new> <ref>" lines; anything else is dropped', () => {
  const text = `${ZERO_OID} ${A} refs/heads/main\n${A} ${ZERO_OID} refs/tags/v1\nnonsense\n${A} ${A}\n${A} ${A} refs/heads/a extra\n`;
  assert.deepEqual(parseRefLines(text), [
    { ref: 'refs/heads/main', before: ZERO_OID, after: A },
    { ref: 'refs/tags/v1', before: A, after: ZERO_OID },
  ]);
});

test('the hooks are executable whatever the umask; pre-receive runs the script with this Node, post-receive writes the updated refs', async () => {
  const script = path.join(root, 'check.ts');
  fs.writeFileSync(script, "import fs from 'node:fs';\nconst input: string = fs.readFileSync(0, 'utf8');\nprocess.stderr.write(`seen ${input.trim()}`);\nprocess.exitCode = 3;\n");
  const dir = path.join(root, 'hooks');
  fs.mkdirSync(dir);
  const previous = process.umask(0o177);
  try {
    await writeHooks(dir, { preReceive: script, compileCache: path.join(root, 'cache') });
  } finally {
    process.umask(previous);
  }
  for (const hook of ['pre-receive', 'post-receive']) assert.equal(fs.statSync(path.join(dir, hook)).mode & 0o111, 0o111, hook);
  const run = (hook: string, input: string) =>
    new Promise<{ code: number; stderr: string }>((resolve) => {
      const child = execFile(path.join(dir, hook), { env: { PATH: process.env.PATH, [PUSH_DIR_ENV]: root } }, (error, _stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code) : 0, stderr });
      });
      child.stdin?.end(input);
    });
  assert.deepEqual(await run('pre-receive', 'x y z\n'), { code: 3, stderr: 'seen x y z' });
  assert.equal((await run('post-receive', `${ZERO_OID} ${A} refs/heads/main\n`)).code, 0);
  assert.equal(fs.readFileSync(path.join(root, REF_UPDATES_FILE), 'utf8'), `${ZERO_OID} ${A} refs/heads/main\n`);
});
