// Reading history: the commits reachable from revisions (filtered by path and dates, paged by git
// itself), their trailers and diff stats, and the last commit that touched a path.
//
// Walking history still takes a git process per request the first time (rev-list for a page or
// a count, with or without a path filter; diff-tree for stats; at most four at once, walks.ts).
// What a walk from commit ids finds never changes, so its answer is kept in the object cache, and
// the commits themselves come from the repository's object reader: a page, a count or stats asked
// again cost no process. Trailers (trailers.ts) and a path's last commit (last-commits.ts) take
// none at all.
import { isObjectId, requireObjectId, requireRepoPath, requireRevision } from './args.ts';
import { objectCache } from './object-cache.ts';
import { directoryPaths, lastCommitsForPaths } from './last-commits.ts';
import { type Commit, type Repository, entryAtPath, objectKey, openRepository, peelToCommit, readCommit } from './objects.ts';
import { GitError } from './run.ts';
import { logTrailers } from './trailers.ts';
import { runWalk } from './walks.ts';

export interface LogQuery {
  /** Revisions to walk from: object ids, branches, tags, `a..b` ranges. Ignored with `all`. */
  revisions?: readonly string[];
  /** Every ref instead of revisions. */
  all?: boolean;
  /** Only commits that change this path. */
  path?: string;
  /** Only commits committed at or after / at or before these times. */
  since?: Date;
  until?: Date;
  firstParent?: boolean;
  /** Parents never before their children (git's --topo-order); default: by commit date. */
  topoOrder?: boolean;
}

/** rev-list's arguments for a query; null when it names nothing to walk. */
function revListArgs(query: LogQuery): string[] | null {
  const revisions = query.all ? [] : (query.revisions ?? []).map(requireRevision);
  if (!query.all && revisions.length === 0) return null;
  const args: string[] = [];
  if (query.topoOrder) args.push('--topo-order');
  if (query.firstParent) args.push('--first-parent');
  // The raw forms of --since and --until: seconds, no date parsing.
  if (query.since) args.push(`--max-age=${Math.floor(query.since.getTime() / 1000)}`);
  if (query.until) args.push(`--min-age=${Math.ceil(query.until.getTime() / 1000)}`);
  if (query.all) args.push('--all');
  args.push('--end-of-options', ...revisions, '--');
  if (query.path !== undefined) args.push(requireRepoPath(query.path));
  return args;
}

/** A walk from commit ids alone (`a..b` ranges of them, `^a` exclusions) finds the same commits forever. */
const FIXED_REVISION = /^\^?[0-9a-f]{40}(\.{2,3}[0-9a-f]{40})?$/;

/**
 * rev-list's answer to a query: kept in the object cache when the query walks from commit ids
 * (not from refs, nor `all`), run each time otherwise.
 */
async function revList(gitDir: string, kind: string, query: LogQuery, args: readonly string[]): Promise<string> {
  const run = async () => (await runWalk(gitDir, ['rev-list', ...args])).stdout.toString('utf8');
  if (query.all || !(query.revisions ?? []).every((r) => FIXED_REVISION.test(r))) return run();
  return objectCache.remember(objectKey(openRepository(gitDir), kind, JSON.stringify(args)), run, (text) => text.length);
}

/** The ids of a page of the commits a query selects, newest first (or in topological order). */
export async function logCommitIds(gitDir: string, query: LogQuery, page: { skip: number; limit: number }): Promise<string[]> {
  const args = revListArgs(query);
  if (args === null || page.limit <= 0) return [];
  const output = await revList(gitDir, 'log', query, [`--skip=${Math.max(0, Math.floor(page.skip))}`, `--max-count=${Math.floor(page.limit)}`, ...args]);
  return output.split('\n').filter((line) => line !== '');
}

const countArgs = (args: readonly string[]) => ['--count', ...args];
/** Where the count of everything a commit reaches is kept (the key revList keeps it under). */
const wholeCountKey = (repo: Repository, id: string) => objectKey(repo, 'count', JSON.stringify(countArgs(revListArgs({ revisions: [id] }) as string[])));

/** Commits followed down a line of single parents before a count is left to rev-list. */
const PARENT_LINE = 64;

/**
 * A count told by the commits alone, without a walk, when their parents make it certain: what
 * `tip` reaches and `base` does not, when tip's line of single parents meets base (each commit on
 * the way is new: the commit on top of a branch head, the usual push); with no base, everything tip
 * reaches, when that line meets a root commit or a commit whose whole count is known. Null when
 * only a walk can tell (a merge on the way, or a long line).
 */
async function countByParents(repo: Repository, tip: string, base: string | null): Promise<number | null> {
  let at = tip;
  for (let count = 0; count <= PARENT_LINE; count++) {
    if (at === base) return count;
    if (base === null) {
      const known = objectCache.get<string>(wholeCountKey(repo, at));
      if (known !== undefined) return count + Number(known.trim());
    }
    const commit = await readCommit(repo, at);
    if (commit === null) return null;
    if (commit.parents.length === 0) return base === null ? count + 1 : null;
    if (commit.parents.length > 1) return null;
    at = commit.parents[0];
  }
  return null;
}

/** How many commits a query selects. */
export async function countCommits(gitDir: string, query: LogQuery): Promise<number> {
  const args = revListArgs(query);
  if (args === null) return 0;
  // `<id>` or `<id> ^<id>` alone (the counts of pushes and of project statistics) may need no walk.
  const [tip, exclude, ...more] = query.revisions ?? [];
  const plain = !query.all && !query.path && !query.since && !query.until && !query.firstParent && more.length === 0;
  if (plain && isObjectId(tip) && (exclude === undefined || (exclude.startsWith('^') && isObjectId(exclude.slice(1))))) {
    const repo = openRepository(gitDir);
    const known = await countByParents(repo, tip, exclude === undefined ? null : exclude.slice(1));
    if (known !== null) {
      // Kept as rev-list's answer would be, so that the next commit on top counts from it.
      const text = `${known}\n`;
      objectCache.set(objectKey(repo, 'count', JSON.stringify(countArgs(args))), text, text.length);
      return known;
    }
  }
  return Number((await revList(gitDir, 'count', query, countArgs(args))).trim());
}

/**
 * The commits with these ids, in the same order, from the repository's object reader (requests
 * pipelined) or the cache. Ids that are not commits are left out.
 */
export async function readCommits(gitDir: string, ids: readonly string[]): Promise<Commit[]> {
  const repo = openRepository(gitDir);
  const commits = await Promise.all(ids.map((id) => readCommit(repo, requireObjectId(id))));
  return commits.filter((commit) => commit !== null);
}

/**
 * Values per commit id computed by one git call for the ids not cached yet (`compute` answers for
 * those), then cached under kind: what a commit holds never changes.
 */
async function perCommit<T>(gitDir: string, kind: string, keys: readonly string[], compute: (missing: readonly string[]) => Promise<Map<string, T>>, sizeOf: (value: T) => number): Promise<Map<string, T>> {
  const repo = openRepository(gitDir);
  const found = new Map<string, T>();
  const missing: string[] = [];
  for (const key of new Set(keys)) {
    const kept = objectCache.get<T>(objectKey(repo, kind, key));
    if (kept === undefined) missing.push(key);
    else found.set(key, kept);
  }
  if (missing.length === 0) return found;
  for (const [key, value] of await compute(missing)) {
    objectCache.set(objectKey(repo, kind, key), value, sizeOf(value));
    found.set(key, value);
  }
  return found;
}

/**
 * Trailers ("Signed-off-by: …") of each commit, as `git log --format=%(trailers)` finds them: key →
 * value, the last one winning. Parsed from the commit read through the object reader (trailers.ts),
 * without a process. Ids that are not commits are left out.
 */
export async function readTrailers(gitDir: string, ids: readonly string[]): Promise<Map<string, Record<string, string>>> {
  const commits = await readCommits(gitDir, ids);
  return new Map(commits.map((commit) => [commit.id, logTrailers(commit.message)]));
}

export interface DiffStats {
  additions: number;
  deletions: number;
  total: number;
}

/**
 * Lines added and removed by each commit against its first parent (a root commit against the
 * empty tree), in one git call; binary files count no lines.
 *
 * This keeps a git process (diff-tree, in turn with the walks) the first time a commit's stats are
 * asked: the counts are those of git's own line diff, heuristics and binary detection included,
 * which no reimplementation would match line for line. What a commit changed never changes, so
 * the answer is kept per commit id in the object cache and asked again costs nothing.
 */
export async function diffStats(gitDir: string, commits: readonly Pick<Commit, 'id' | 'parents'>[]): Promise<Map<string, DiffStats>> {
  const byId = new Map(commits.map((c) => [requireObjectId(c.id), c]));
  const stats = await perCommit(gitDir, 'diffstat', [...byId.keys()], (missing) => diffTreeStats(gitDir, missing.map((id) => byId.get(id) as Commit)), () => 64);
  // Copies: the cached values are shared.
  return new Map(commits.map((c) => [c.id, { ...(stats.get(c.id) as DiffStats) }]));
}

/** diff-tree's numstat of each commit against its first parent, in one git call. */
async function diffTreeStats(gitDir: string, commits: readonly Pick<Commit, 'id' | 'parents'>[]): Promise<Map<string, DiffStats>> {
  const stats = new Map<string, DiffStats>(commits.map((c) => [c.id, { additions: 0, deletions: 0, total: 0 }]));
  const input = commits.map((c) => `${c.id}${c.parents.length > 0 ? ` ${requireObjectId(c.parents[0])}` : ''}\n`).join('');
  const { stdout } = await runWalk(gitDir, ['diff-tree', '--stdin', '-z', '-r', '--root', '--numstat'], { input });
  // Each commit's records follow a unit holding its id alone; a record is "<added>\t<deleted>\t<path>".
  let current: DiffStats | undefined;
  for (const unit of stdout.toString('utf8').split('\0')) {
    const tab = unit.indexOf('\t');
    if (tab === -1) {
      current = stats.get(unit);
      continue;
    }
    if (!current) continue;
    const added = Number(unit.slice(0, tab));
    const deleted = Number(unit.slice(tab + 1, unit.indexOf('\t', tab + 1)));
    if (Number.isInteger(added)) current.additions += added;
    if (Number.isInteger(deleted)) current.deletions += deleted;
    current.total = current.additions + current.deletions;
  }
  return stats;
}

/**
 * The last commit reachable from `revision` that changed the path; null when none did. Found with
 * the other entries of its directory in one walk over the object reader (last-commits.ts), and
 * kept per (commit, path).
 */
export async function lastCommitForPath(gitDir: string, revision: string, filePath: string): Promise<string | null> {
  const path = requireRepoPath(filePath);
  const repo = openRepository(gitDir);
  const commit = await peelToCommit(repo, revision);
  if (commit === null) throw new GitError('failed', `unknown revision: ${JSON.stringify(revision)}`);
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const siblings = (await directoryPaths(repo, commit, dir)) ?? [];
  return (await lastCommitsForPaths(repo, commit, [path], siblings)).get(path) ?? null;
}

/** Whether a path names an entry (file or directory) in a commit's tree. */
export async function pathExists(gitDir: string, commit: string, entryPath: string): Promise<boolean> {
  return (await entryAtPath(openRepository(gitDir), requireObjectId(commit), requireRepoPath(entryPath))) !== null;
}

export interface CommitChanges {
  added: string[];
  modified: string[];
  removed: string[];
}

/**
 * The paths each commit added, modified and removed against its first parent (a root commit
 * against the empty tree), without rename detection, in one git call: what webhook payloads list
 * per commit.
 */
export async function commitChanges(gitDir: string, commits: readonly Pick<Commit, 'id' | 'parents'>[]): Promise<Map<string, CommitChanges>> {
  const changes = new Map<string, CommitChanges>(commits.map((c) => [requireObjectId(c.id), { added: [], modified: [], removed: [] }]));
  if (commits.length === 0) return changes;
  const input = commits.map((c) => `${c.id}${c.parents.length > 0 ? ` ${requireObjectId(c.parents[0])}` : ''}\n`).join('');
  const { stdout } = await runWalk(gitDir, ['diff-tree', '--stdin', '-z', '-r', '--root', '--no-renames', '--name-status'], { input });
  // A unit holding a commit id alone starts that commit's records; a record is "<status>\0<path>".
  const units = stdout.toString('utf8').split('\0');
  let current: CommitChanges | undefined;
  for (let i = 0; i < units.length; i++) {
    const unit = units[i];
    if (/^[0-9a-f]{40}$/.test(unit) && changes.has(unit)) {
      current = changes.get(unit);
      continue;
    }
    if (!current || unit === '') continue;
    const filePath = units[++i];
    if (filePath === undefined) break;
    if (unit === 'A') current.added.push(filePath);
    else if (unit === 'D') current.removed.push(filePath);
    else current.modified.push(filePath);
  }
  return changes;
}
