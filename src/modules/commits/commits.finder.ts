// Reading commits from a project's repository: one commit by any revision, and pages of history.
import { isObjectId, validRevision } from '../../git/args.ts';
import type { Commit } from '../../git/commits.ts';
import { type DiffStats, type LogQuery, countCommits, diffStats, logCommitIds, readCommits, readTrailers } from '../../git/history.ts';
import { resolveCommit } from '../../git/refs.ts';

/** The commit a revision names (a sha, a branch, a tag, `main~1`); null when it names none or is not a revision. */
export async function findCommit(dir: string | null, revision: string): Promise<Commit | null> {
  if (dir === null || !validRevision(revision)) return null;
  const id = await resolveCommit(dir, revision);
  if (id === null) return null;
  return (await readCommits(dir, [id]))[0] ?? null;
}

/**
 * A ref_name as git walks it: a revision, or a range `a..b` / `a...b` whose ends each name a commit.
 * Null when any part names nothing, which lists no commits.
 */
export async function resolveWalk(dir: string, refName: string): Promise<string | null> {
  const range = /^(.+?)(\.{2,3})(.+)$/.exec(refName);
  const ends = range ? [range[1], range[3]] : [refName];
  const ids: string[] = [];
  for (const end of ends) {
    const id = validRevision(end) ? await resolveCommit(dir, end) : null;
    if (id === null) return null;
    ids.push(id);
  }
  return range ? `${ids[0]}${range[2]}${ids[1]}` : ids[0];
}

export interface HistoryPage {
  commits: Commit[];
  total: number;
  stats: Map<string, DiffStats> | null;
  trailers: Map<string, Record<string, string>> | null;
}

/** One page of a query's commits, how many it selects, and the stats and trailers asked for. */
export async function findHistory(
  dir: string,
  query: LogQuery,
  page: { skip: number; limit: number },
  wants: { stats: boolean; trailers: boolean },
): Promise<HistoryPage> {
  const [ids, total] = await Promise.all([logCommitIds(dir, query, page), countCommits(dir, query)]);
  const commits = await readCommits(dir, ids);
  const [stats, trailers] = await Promise.all([
    wants.stats ? diffStats(dir, commits) : null,
    wants.trailers ? readTrailers(dir, ids) : null,
  ]);
  return { commits, total, stats, trailers };
}

/** Whether a start_sha is written as a full commit id (Gitlab::Git.commit_id?). */
export function isCommitId(value: string): boolean {
  return isObjectId(value.toLowerCase());
}
