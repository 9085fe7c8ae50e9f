// Reading one file of a repository at a commit: its blob and the last commit that changed it.
import { badRequest } from '../../core/errors.ts';
import { safeRepoPath } from '../../git/args.ts';
import { type Blob, readBlob } from '../../git/commits.ts';
import { lastCommitForPath } from '../../git/history.ts';
import { GitError } from '../../git/run.ts';

export interface FoundFile {
  commitId: string;
  blob: Blob;
  lastCommitId: string;
}

/** The file at a path in a commit; null when there is none there, or the path could name none. */
export async function findFile(dir: string, commitId: string, filePath: string): Promise<FoundFile | null> {
  const path = safeRepoPath(filePath);
  if (path === null) return null;
  const blob = await readBlob(dir, commitId, path).catch((error: unknown) => {
    // readBlob refuses blobs over its cap rather than hold them whole in memory.
    if (error instanceof GitError && error.kind === 'output_limit') throw badRequest('File is too large to be read through the API');
    throw error;
  });
  if (blob === null) return null;
  // Some commit reachable from this one added the file, so the walk always finds one.
  const lastCommitId = (await lastCommitForPath(dir, commitId, path)) ?? commitId;
  return { commitId, blob, lastCommitId };
}
