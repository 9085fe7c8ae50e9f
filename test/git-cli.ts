// The real git command line as a client of a listening test app: a private HOME (no user or
// system configuration, no credential helper), no prompts, fixed identities and dates, so that
// every run sees the same commits.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface GitRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface GitCli {
  /** A scratch directory for clones. */
  readonly root: string;
  /** Runs git; resolves with its exit status and output whatever they are. */
  run(args: readonly string[], cwd?: string): Promise<GitRun>;
  /** Runs git and rejects unless it succeeds. */
  ok(args: readonly string[], cwd?: string): Promise<string>;
  /** Writes a file in a work tree and commits it; returns the new commit's id. */
  commit(dir: string, file: string, content: string, message: string): Promise<string>;
  close(): void;
}

/** `http://login:password@host/path.git`, the form git takes credentials in. */
export function gitUrl(host: string, fullPath: string, credentials?: { login: string; password: string }): string {
  const url = new URL(`${host}/${fullPath}.git`);
  if (credentials) {
    url.username = encodeURIComponent(credentials.login);
    url.password = encodeURIComponent(credentials.password);
  }
  return url.toString();
}

/** extraEnv: more variables for every run (GIT_SSH_COMMAND, for git over SSH). */
export function gitCli(extraEnv: Record<string, string> = {}): GitCli {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-cli-'));
  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Ada Lovelace',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_COMMITTER_NAME: 'Ada Lovelace',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    LANG: 'C',
    LC_ALL: 'C',
    ...extraEnv,
  };
  let tick = 0;
  const run = (args: readonly string[], cwd = root, extraEnv: Record<string, string> = {}) =>
    new Promise<GitRun>((resolve) => {
      execFile('git', args, { cwd, env: { ...env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  const ok = async (args: readonly string[], cwd?: string) => {
    const result = await run(args, cwd);
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
    return result.stdout;
  };
  return {
    root,
    run: (args, cwd) => run(args, cwd),
    ok,
    async commit(dir, file, content, message) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), content);
      await ok(['add', '--', file], dir);
      const date = `${1_700_000_000 + ++tick} +0000`;
      const committed = await run(['commit', '-q', '-m', message], dir, { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
      if (committed.code !== 0) throw new Error(`git commit failed: ${committed.stderr}`);
      return (await ok(['rev-parse', 'HEAD'], dir)).trim();
    },
    close: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}
