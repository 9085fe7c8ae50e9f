// Reading one file of a repository at a commit: its blob and the last commit that changed it.
import { safeRepoPath } from '../../git/args.ts';
import { type Blob, readBlob } from '../../git/commits.ts';
import { lastCommitForPath } from '../../git/history.ts';

export interface FoundFile {
  commitId: string;
  blob: Blob;
  lastCommitId: string;
}

/** The file at a path in a commit; null when there is none there, or the path could name none. */
export async function findFile(dir: string, commitId: string, filePath: string): Promise<FoundFile | null> {
  const path = safeRepoPath(filePath);
  if (path === null) return null;
  const blob = await readBlob(dir, commitId, path);
  if (blob === null) return null;
  // Some commit reachable from this one added the file, so the walk always finds one.
  const lastCommitId = (await lastCommitForPath(dir, commitId, path)) ?? commitId;
  return { commitId, blob, lastCommitId };
}
