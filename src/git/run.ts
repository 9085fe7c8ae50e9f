// The one place that starts git. Every call runs with a pinned environment (no user or system
// configuration, no inherited GIT_* variables, no prompts), a time limit that kills git and
// whatever it started, and a cap on what it may write. Callers pass user text only as validated
// positional arguments (args.ts) or on standard input.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitObserver, subcommandOf } from './observer.ts';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;
/** Standard error is for messages; only its beginning is kept. */
const MAX_STDERR = 64 * 1024;

export type GitErrorKind =
  /** git exited with a status the caller did not accept. */
  | 'failed'
  | 'timeout'
  /** Standard output outgrew maxOutput. */
  | 'output_limit'
  /** A compare-and-set on a ref lost: the ref moved, exists, or another writer held its lock. */
  | 'conflict'
  /** An argument was refused before git ran (an invalid ref name, an unsafe path). */
  | 'invalid';

export class GitError extends Error {
  readonly kind: GitErrorKind;
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(kind: GitErrorKind, message: string, details: { args?: readonly string[]; exitCode?: number | null; stderr?: string } = {}) {
    super(message);
    this.name = 'GitError';
    this.kind = kind;
    this.args = details.args ?? [];
    this.exitCode = details.exitCode ?? null;
    this.stderr = details.stderr ?? '';
  }
}

export interface GitOptions {
  /** Written to git's standard input, which is then closed. */
  input?: Buffer | string;
  /** Milliseconds before git is killed (default 30 s). */
  timeoutMs?: number;
  /** Largest standard output accepted, in bytes (default 256 MiB). */
  maxOutput?: number;
  /** Variables added to the pinned environment (GIT_INDEX_FILE, GIT_AUTHOR_*, GIT_PROTOCOL, …). */
  env?: Record<string, string>;
  /** Exit statuses that are answers rather than failures (e.g. 1 for merge-base --is-ancestor). */
  okExitCodes?: readonly number[];
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/**
 * An empty private directory that stands in for HOME and XDG_CONFIG_HOME, so that no user file
 * (global attributes, credentials) is read; removed when the process exits.
 */
let emptyHome: string | null = null;
function homeDir(): string {
  if (emptyHome === null || !fs.existsSync(emptyHome)) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-home-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    emptyHome = dir;
  }
  return emptyHome;
}

function environment(gitDir: string | null, extra: Record<string, string> | undefined): Record<string, string> {
  const home = homeDir();
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/true',
    // A pushed refs/replace/* must not change what every reader sees.
    GIT_NO_REPLACE_OBJECTS: '1',
    // Paths from users are paths, never pathspec magic (':(exclude)…') or globs.
    GIT_LITERAL_PATHSPECS: '1',
    LANG: 'C',
    LC_ALL: 'C',
    TZ: 'UTC',
    // Outside a repository (git init), git looks for none above its working directory.
    ...(gitDir !== null ? { GIT_DIR: gitDir } : { GIT_CEILING_DIRECTORIES: path.dirname(home) }),
    ...extra,
  };
}

function startGit(gitDir: string | null, args: readonly string[], env: Record<string, string> | undefined): ChildProcessWithoutNullStreams {
  // Its own process group, so that a time limit also ends what git started (pack-objects, …).
  return spawn('git', args, { cwd: gitDir ?? homeDir(), env: environment(gitDir, env), detached: true, stdio: 'pipe' });
}

/** Kills git and its process group; quiet when they are already gone. */
function killGroup(child: ChildProcessWithoutNullStreams): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Tells the observer, if any, that git starts; what it returns tells it how git ended. */
function observe(args: readonly string[]): { end(failure: string | null): void } | null {
  const observer = gitObserver();
  if (observer === null) return null;
  const subcommand = subcommandOf(args);
  const start = performance.now();
  observer.started(subcommand);
  return { end: (failure) => observer.ended(subcommand, (performance.now() - start) / 1000, failure) };
}

function label(args: readonly string[]): string {
  return `git ${args[0] ?? ''}`;
}

/**
 * Runs git to completion. `gitDir` becomes GIT_DIR (and the working directory); null runs git
 * outside any repository (git init). Resolves with the output when the exit status is 0 or one of
 * okExitCodes; otherwise rejects with a GitError.
 */
export function runGit(gitDir: string | null, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const maxOutput = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const observed = observe(args);
  return new Promise((resolve, reject) => {
    const child = startGit(gitDir, args, options.env);
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: GitError | null = null;
    const fail = (error: GitError) => {
      failure ??= error;
      killGroup(child);
    };
    const timer = setTimeout(() => fail(new GitError('timeout', `${label(args)} timed out`, { args })), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);

    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxOutput) return fail(new GitError('output_limit', `${label(args)} wrote more than ${maxOutput} bytes`, { args }));
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8', 0, MAX_STDERR - stderr.length);
    });
    // git may exit before reading all of its input (a refusal); that is not our error to report.
    child.stdin.on('error', () => {});
    child.on('error', (error) => fail(new GitError('failed', `${label(args)} could not start: ${error.message}`, { args })));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure) {
        observed?.end(failure.kind);
        return reject(failure);
      }
      const exitCode = code ?? -1;
      if (exitCode !== 0 && !(options.okExitCodes ?? []).includes(exitCode)) {
        observed?.end('failed');
        const firstLine = stderr.trim().split('\n')[0] ?? '';
        return reject(new GitError('failed', `${label(args)} failed (${exitCode}): ${firstLine}`, { args, exitCode, stderr }));
      }
      observed?.end(null);
      resolve({ stdout: Buffer.concat(chunks), stderr, exitCode });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface GitExit {
  /** null when git could not start or was killed. */
  exitCode: number | null;
  /** The beginning of git's standard error (or why it could not start). */
  stderr: string;
  timedOut: boolean;
}

export interface GitProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdin: ChildProcessWithoutNullStreams['stdin'];
  readonly stdout: ChildProcessWithoutNullStreams['stdout'];
  /** Settles (never rejects) when git has exited. */
  readonly done: Promise<GitExit>;
  /** Ends git and its process group now. */
  kill(): void;
}

export interface SpawnOptions extends Pick<GitOptions, 'env'> {
  /**
   * Milliseconds before git is killed (default 30 s); null for none, for a long-lived object
   * reader, which holds each of its requests to the time limit instead.
   */
  timeoutMs?: number | null;
}

/**
 * Starts git with streams, for smart HTTP, archives and object readers: the caller pipes stdin and
 * stdout. The same environment and time limit apply; `done` tells whether the limit killed git.
 */
export function spawnGit(gitDir: string | null, args: readonly string[], options: SpawnOptions = {}): GitProcess {
  // A long-lived reader (no time limit) is counted when it starts; its lifetime is no process duration.
  let observed: ReturnType<typeof observe> = null;
  if (options.timeoutMs === null) gitObserver()?.started(subcommandOf(args));
  else observed = observe(args);
  const child = startGit(gitDir, args, options.env);
  let timedOut = false;
  const timer =
    options.timeoutMs === null
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          killGroup(child);
        }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8', 0, MAX_STDERR - stderr.length);
  });
  child.stdin.on('error', () => {});
  const done = new Promise<GitExit>((resolve) => {
    child.on('error', (error) => {
      stderr ||= `${label(args)} could not start: ${error.message}`;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      observed?.end(timedOut ? 'timeout' : code === 0 ? null : code === null ? 'killed' : 'failed');
      resolve({ exitCode: code, stderr, timedOut });
    });
  });
  return { child, stdin: child.stdin, stdout: child.stdout, done, kill: () => killGroup(child) };
}
