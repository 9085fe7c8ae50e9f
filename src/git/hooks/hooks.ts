// The hooks receive-pack runs, written into each push's own directory, which the push's
// configuration names (core.hooksPath, so that no repository's own hooks run): pre-receive runs a
// Node script of the server's choosing, which decides the push; post-receive writes the refs the
// push updated next to it, where the server reads them once git has exited. The hooks find that
// directory in QUARRY_PUSH_DIR.
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isObjectId, requireObjectId } from '../args.ts';
import { runGit } from '../run.ts';

/** The variable naming the push's own directory, set by the server on receive-pack's environment. */
export const PUSH_DIR_ENV = 'QUARRY_PUSH_DIR';
/** Where post-receive writes the updated refs, in the push's directory. */
export const REF_UPDATES_FILE = 'ref-updates';
/** Where post-receive writes the push options (`git push -o`), one per line, before the refs. */
export const PUSH_OPTIONS_FILE = 'push-options';

/** One line of a hook's input: a ref, what it held and what it holds (all zeros for nothing). */
export interface RefLine {
  ref: string;
  before: string;
  after: string;
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

export interface HookScripts {
  /** The Node script pre-receive runs, with this very Node binary. */
  preReceive: string;
  /** Where that Node keeps its compiled code between pushes, since every push waits for it to start. */
  compileCache: string;
}

/**
 * Writes pre-receive and post-receive into `dir`, executable: git silently skips a hook that is
 * not, which would let a push through unchecked. Warnings stay off, since whatever a hook prints
 * reaches the pusher.
 */
export async function writeHooks(dir: string, scripts: HookScripts): Promise<void> {
  const node = `NODE_COMPILE_CACHE=${shellQuote(scripts.compileCache)} exec ${shellQuote(process.execPath)} --no-warnings ${shellQuote(scripts.preReceive)}`;
  const hooks = {
    'pre-receive': `#!/bin/sh\n${node}\n`,
    // Push options cannot hold a line break (git refuses them), so one per line is unambiguous.
    'post-receive': [
      '#!/bin/sh',
      `dir="\${${PUSH_DIR_ENV}:?}"`,
      'i=0',
      `: > "$dir/${PUSH_OPTIONS_FILE}"`,
      'while [ "$i" -lt "${GIT_PUSH_OPTION_COUNT:-0}" ]; do',
      `  printenv "GIT_PUSH_OPTION_$i" >> "$dir/${PUSH_OPTIONS_FILE}"`,
      '  i=$((i + 1))',
      'done',
      `exec cat > "$dir/${REF_UPDATES_FILE}"`,
      '',
    ].join('\n'),
  };
  for (const [name, content] of Object.entries(hooks)) {
    await fs.writeFile(path.join(dir, name), content);
    // chmod, unlike the mode of writeFile, ignores the umask.
    await fs.chmod(path.join(dir, name), 0o755);
  }
}

/** Parses "<old> <new> <ref>" lines, as git gives them to pre- and post-receive; malformed lines are dropped. */
export function parseRefLines(text: string): RefLine[] {
  const lines: RefLine[] = [];
  for (const line of text.split('\n')) {
    const [before, after, ref, ...rest] = line.split(' ');
    if (rest.length === 0 && ref && isObjectId(before) && isObjectId(after)) lines.push({ ref, before, after });
  }
  return lines;
}

// ---- The read-only mark -------------------------------------------------------------------------------

/**
 * A file in a repository that makes every push to it refuse, its text being the refusal: a storage
 * move writes it before it waits for the pushes already under way, so that a push whose rules
 * were worked out before the move began is still refused by pre-receive.
 */
export const READ_ONLY_MARKER = 'quarry-read-only';

/** Inside pre-receive: the refusal the repository's read-only mark holds, or null when it has none. */
export function readOnlyMark(gitDir: string): string | null {
  try {
    return readFileSync(path.join(gitDir, READ_ONLY_MARKER), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

// ---- Inside a hook ----------------------------------------------------------------------------------

/** The repository a hook runs for (git sets GIT_DIR, possibly relative to the hook's working directory). */
export function hookRepository(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.GIT_DIR ?? '.');
}

/** The variables through which git lets pre-receive read the pushed objects, still in quarantine. */
function quarantineEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const names = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'];
  return Object.fromEntries(names.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
}

/** Inside pre-receive: whether `ancestor` is reachable from `descendant`, the pushed objects included. */
export async function isAncestorInPush(gitDir: string, ancestor: string, descendant: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const args = ['merge-base', '--is-ancestor', '--end-of-options', requireObjectId(ancestor), requireObjectId(descendant)];
  const { exitCode } = await runGit(gitDir, args, { okExitCodes: [1], env: quarantineEnv(env) });
  return exitCode === 0;
}
