// What a repository holds, as the project statistics count it: the commits of a branch and the
// space on disk. This runs in background jobs after pushes, never in a request.
import fs from 'node:fs/promises';
import path from 'node:path';
import { requireBranchName } from './args.ts';
import { countCommits } from './history.ts';
import { resolveRef } from './refs.ts';

/**
 * The commits reachable from a branch; 0 when it does not exist. Counted from the branch's commit
 * id, so that the count is kept per commit, and a push of commits on top of a counted head
 * counts them alone, without a walk (history.ts).
 */
export async function commitCount(gitDir: string, branch: string): Promise<number> {
  const head = await resolveRef(gitDir, `refs/heads/${requireBranchName(branch)}`);
  return head === null ? 0 : countCommits(gitDir, { revisions: [head] });
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
