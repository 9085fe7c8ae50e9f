// What a repository holds, summed up so that two copies can be compared after a storage move:
// a checksum of its refs (each ref's name and target, and where HEAD points) and one of its
// objects (every object's id, type and size, as `cat-file --batch-all-objects` lists them in
// order). Equal checksums mean the copy has every ref and object of the original.
import { createHash } from 'node:crypto';
import { runGit, spawnGit } from './run.ts';

export interface RepositoryChecksums {
  readonly refs: string;
  readonly objects: string;
}

/** The refs checksum alone: cheap, for telling whether a repository changed. */
export async function refsChecksum(gitDir: string): Promise<string> {
  const [refs, head] = await Promise.all([
    runGit(gitDir, ['for-each-ref', '--format=%(objectname) %(refname)']),
    runGit(gitDir, ['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [1] }),
  ]);
  const lines = refs.stdout.toString('utf8').split('\n').filter(Boolean).sort();
  return createHash('sha256').update(`HEAD ${head.stdout.toString('utf8').trim()}\n`).update(lines.join('\n')).digest('hex');
}

/** Streams the list of every object through a hash (a large repository's list is never held whole). */
export async function objectsChecksum(gitDir: string, timeoutMs = 60 * 60 * 1000): Promise<string> {
  const git = spawnGit(gitDir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { timeoutMs });
  const hash = createHash('sha256');
  git.stdin.end();
  git.stdout.on('data', (chunk: Buffer) => hash.update(chunk));
  const exit = await git.done;
  if (exit.exitCode !== 0) throw new Error(`git cat-file could not list the objects of ${gitDir}: ${exit.timedOut ? 'timed out' : exit.stderr.trim()}`);
  return hash.digest('hex');
}

export async function repositoryChecksums(gitDir: string): Promise<RepositoryChecksums> {
  const [refs, objects] = await Promise.all([refsChecksum(gitDir), objectsChecksum(gitDir)]);
  return { refs, objects };
}
