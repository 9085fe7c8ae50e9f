// The suite's own command. `node --test --test-force-exit` exits once the test files started so
// far are done, even when other files are still waiting for a slot of --test-concurrency: one run
// in several then reports fewer tests, all passing, without saying that whole files never ran
// (measured on Node 24: 540 to 633 of src/ci's 649 tests in three runs). Every file must run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };

test('npm test runs every test file: no --test-force-exit, both trees', () => {
  const command = pkg.scripts.test;
  assert.match(command, /node --test /);
  assert.doesNotMatch(command, /--test-force-exit/);
  assert.match(command, /"src\/\*\*\/\*\.test\.ts"/);
  assert.match(command, /"test\/\*\*\/\*\.test\.ts"/);
});
