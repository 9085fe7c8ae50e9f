// Getting the job's commit into its project directory over HTTP with the job token, as the real
// runner does: GIT_STRATEGY (fetch reuses the directory, clone starts afresh, none does nothing),
// the payload's refspecs and depth, a forced checkout of the commit and a clean.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { JobPayload } from './runner-api.ts';

export class GitSourceError extends Error {}

interface SourceOptions {
  projectDir: string;
  /** The job's variables, last definition winning. */
  variable: (key: string) => string | undefined;
  env: Record<string, string>;
  line: (text: string) => void;
  /** Runs a command to its end, as the job's current process (which a cancellation or the time limit ends); its exit code. */
  run: (command: string, args: string[], env: Record<string, string>) => Promise<number>;
}

export async function getSources(job: JobPayload, options: SourceOptions): Promise<void> {
  const { projectDir, line } = options;
  const strategy = options.variable('GIT_STRATEGY') || (job.allow_git_fetch ? 'fetch' : 'clone');
  if (strategy === 'none') {
    line('Skipping Git repository setup');
    await fs.mkdir(projectDir, { recursive: true });
    return;
  }
  if (strategy !== 'fetch' && strategy !== 'clone') throw new GitSourceError(`unknown GIT_STRATEGY "${strategy}"`);
  const { git_info: info } = job;
  // No prompt for a password, no helper of the host's, no hooks run from the fetched repository.
  const env = { ...options.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_LFS_SKIP_SMUDGE: '1' };
  const git = async (...args: string[]) => {
    const code = await options.run('git', ['-c', 'core.hooksPath=/dev/null', ...args], env);
    if (code !== 0) throw new GitSourceError(`git ${args[0]} failed with exit code ${code}`);
  };
  if (strategy === 'clone') await fs.rm(projectDir, { recursive: true, force: true });
  const fresh = !(await fs.stat(path.join(projectDir, '.git')).catch(() => null));
  await fs.mkdir(projectDir, { recursive: true });
  if (info.depth > 0) line(`Fetching changes with git depth set to ${info.depth}...`);
  else line('Fetching changes...');
  if (fresh) {
    await git('init', '-q', projectDir);
    line(`Created fresh repository.`);
    await git('remote', 'add', 'origin', info.repo_url);
  } else {
    line(`Reinitialized existing Git repository in ${projectDir}/.git/`);
    await git('remote', 'set-url', 'origin', info.repo_url);
  }
  await git('fetch', '--quiet', '--prune', '--no-recurse-submodules', ...(info.depth > 0 ? [`--depth=${info.depth}`] : []), 'origin', ...info.refspecs);
  line(`Checking out ${info.sha.slice(0, 8)} as ${info.ref}...`);
  if (options.variable('GIT_CHECKOUT') !== 'false') {
    await git('checkout', '-f', '-q', info.sha);
    const flags = options.variable('GIT_CLEAN_FLAGS') ?? '-ffdx';
    if (flags !== 'none') await git('clean', ...flags.split(/\s+/).filter(Boolean));
  }
  line('Skipping Git submodules setup');
}
