// The pre-receive hook, run with Node by the script git/hooks/hooks.ts writes: reads the refs of
// the push on standard input and the rules the server wrote for this pusher, and refuses the whole
// push at the first ref the rules refuse, with the platform's message (git shows "remote: GitLab: …"
// and every ref as "pre-receive hook declined"). Anything unexpected refuses the push too.
import fs from 'node:fs';
import path from 'node:path';
import { PUSH_DIR_ENV, hookRepository, isAncestorInPush, parseRefLines, readOnlyMark } from '../../git/hooks/hooks.ts';
import { type PushRules, RULES_FILE, firstRefusal } from './push-rules.ts';

async function check(): Promise<string | null> {
  const dir = process.env[PUSH_DIR_ENV];
  if (!dir) return 'The push could not be checked.';
  const rules = JSON.parse(fs.readFileSync(path.join(dir, RULES_FILE), 'utf8')) as PushRules;
  const updates = parseRefLines(fs.readFileSync(0, 'utf8'));
  const gitDir = hookRepository();
  // A storage move that began after these rules were written.
  const readOnly = readOnlyMark(gitDir);
  if (readOnly !== null) return readOnly;
  return firstRefusal(rules, updates, async (before, after) => !(await isAncestorInPush(gitDir, before, after)));
}

try {
  const refusal = await check();
  if (refusal !== null) {
    process.stderr.write(`GitLab: ${refusal}\n`);
    process.exitCode = 1;
  }
} catch {
  process.stderr.write('GitLab: The push could not be checked.\n');
  process.exitCode = 1;
}
