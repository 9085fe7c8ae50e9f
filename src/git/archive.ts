// Archives of a commit's tree (tar.gz, tar.bz2, tar, zip), streamed from `git archive` as it
// writes them: nothing is buffered, and a failure midway aborts the stream instead of ending it
// as if the archive were complete. One git process per request, on purpose: the work is the
// stream itself (compression included), which the object reader would only slow down.
import { PassThrough, type Readable } from 'node:stream';
import { requireObjectId, requireRepoPath } from './args.ts';
import { spawnGit } from './run.ts';

export const ARCHIVE_FORMATS = ['tar.gz', 'tar.bz2', 'tar', 'zip'] as const;
export type ArchiveFormat = (typeof ARCHIVE_FORMATS)[number];

/** Large repositories take a while to pack; a client reading slowly holds git back too. */
const ARCHIVE_TIMEOUT_MS = 10 * 60_000;

export interface ArchiveRequest {
  commit: string;
  format: ArchiveFormat;
  /** The directory every entry is placed under (no slashes at either end). */
  prefix: string;
  /** Only this directory or file of the tree. */
  path?: string;
}

/**
 * The archive as a stream. Destroying the stream (the client went away) ends git; git failing or
 * running out of time destroys the stream with an error.
 */
export function archiveStream(gitDir: string, request: ArchiveRequest): Readable {
  // bzip2 is not built into git; the filter command is ours, never the caller's.
  const filter = request.format === 'tar.bz2' ? ['-c', 'tar.tar.bz2.command=bzip2 -c'] : [];
  const args = [
    ...filter,
    'archive',
    `--format=${request.format}`,
    `--prefix=${request.prefix}/`,
    // After --end-of-options everything is positional (archive would take a `--` for a path).
    '--end-of-options',
    requireObjectId(request.commit),
    ...(request.path !== undefined ? [requireRepoPath(request.path)] : []),
  ];
  const git = spawnGit(gitDir, args, { timeoutMs: ARCHIVE_TIMEOUT_MS });
  const out = new PassThrough();
  git.stdout.pipe(out, { end: false });
  let exited = false;
  out.on('close', () => {
    if (!exited) git.kill();
  });
  void git.done.then((exit) => {
    exited = true;
    if (exit.exitCode === 0 && !exit.timedOut) out.end();
    else out.destroy(new Error(`git archive failed: ${exit.timedOut ? 'timed out' : exit.stderr.trim().split('\n')[0]}`));
  });
  return out;
}
