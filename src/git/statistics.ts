// What a repository holds, as the project statistics count it: the commits of a branch and the
// space on disk. A process per call: this runs in background jobs after pushes, never in a request.
import fs from 'node:fs/promises';
import path from 'node:path';
import { requireBranchName } from './args.ts';
import { GitError, runGit } from './run.ts';

/** The commits reachable from a branch; 0 when it does not exist. */
export async function commitCount(gitDir: string, branch: string): Promise<number> {
  const ref = `refs/heads/${requireBranchName(branch)}`;
  try {
    const { stdout } = await runGit(gitDir, ['rev-list', '--count', ref, '--']);
    return Number(stdout.toString().trim());
  } catch (error) {
    // rev-list exits 128 on a revision that does not resolve.
    if (error instanceof GitError && error.kind === 'failed' && error.exitCode === 128) return 0;
    throw error;
  }
}

/** Bytes on disk under the repository, counted as `du` counts them: the blocks allocated. */
export async function repositorySize(gitDir: string): Promise<number> {
  let bytes = 0;
  const pending = [gitDir];
  for (let dir = pending.pop(); dir !== undefined; dir = pending.pop()) {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const entryPath = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(entryPath);
      const stat = await fs.lstat(entryPath).catch(() => null);
      if (stat) bytes += stat.blocks * 512;
    }
  }
  return bytes;
}
