// Reading history: the commits reachable from revisions (filtered by path and dates, paged by git
// itself), their trailers and diff stats, and the last commit that touched a path.
import { requireObjectId, requireRepoPath, requireRevision } from './args.ts';
import { type Commit, parseCommit } from './commits.ts';
import { runGit } from './run.ts';

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

/** The ids of a page of the commits a query selects, newest first (or in topological order). */
export async function logCommitIds(gitDir: string, query: LogQuery, page: { skip: number; limit: number }): Promise<string[]> {
  const args = revListArgs(query);
  if (args === null || page.limit <= 0) return [];
  const { stdout } = await runGit(gitDir, ['rev-list', `--skip=${Math.max(0, Math.floor(page.skip))}`, `--max-count=${Math.floor(page.limit)}`, ...args]);
  return stdout.toString('utf8').split('\n').filter((line) => line !== '');
}

/** How many commits a query selects. */
export async function countCommits(gitDir: string, query: LogQuery): Promise<number> {
  const args = revListArgs(query);
  if (args === null) return 0;
  const { stdout } = await runGit(gitDir, ['rev-list', '--count', ...args]);
  return Number(stdout.toString('utf8').trim());
}

/**
 * The commits with these ids, in the same order, read in one git call (`cat-file --batch` frames
 * every object by its size, so no message can confuse the parsing). Ids that are not commits are
 * left out.
 */
export async function readCommits(gitDir: string, ids: readonly string[]): Promise<Commit[]> {
  if (ids.length === 0) return [];
  const input = ids.map((id) => `${requireObjectId(id)}\n`).join('');
  const { stdout } = await runGit(gitDir, ['cat-file', '--batch'], { input });
  const commits: Commit[] = [];
  let at = 0;
  while (at < stdout.length) {
    const eol = stdout.indexOf(0x0a, at);
    if (eol === -1) break;
    const [id, type, size] = stdout.toString('utf8', at, eol).split(' ');
    at = eol + 1;
    if (size === undefined) continue; // "<id> missing"
    const end = at + Number(size);
    if (type === 'commit') commits.push(parseCommit(id, stdout.toString('utf8', at, end)));
    at = end + 1;
  }
  return commits;
}

/** Trailers ("Signed-off-by: …") of each commit, as git finds them: key → value, the last one winning. */
export async function readTrailers(gitDir: string, ids: readonly string[]): Promise<Map<string, Record<string, string>>> {
  const trailers = new Map<string, Record<string, string>>();
  if (ids.length === 0) return trailers;
  const format = '--format=%H%x00%(trailers:only,unfold,separator=%x01,key_value_separator=%x02)';
  const { stdout } = await runGit(gitDir, ['log', '--no-walk=unsorted', '-z', format, '--end-of-options', ...ids.map(requireObjectId)]);
  const fields = stdout.toString('utf8').split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const pairs: Record<string, string> = {};
    for (const line of fields[i + 1].split('\x01')) {
      const separator = line.indexOf('\x02');
      if (separator > 0) pairs[line.slice(0, separator)] = line.slice(separator + 1);
    }
    trailers.set(fields[i], pairs);
  }
  return trailers;
}

export interface DiffStats {
  additions: number;
  deletions: number;
  total: number;
}

/**
 * Lines added and removed by each commit against its first parent (a root commit against the
 * empty tree), in one git call; binary files count no lines.
 */
export async function diffStats(gitDir: string, commits: readonly Pick<Commit, 'id' | 'parents'>[]): Promise<Map<string, DiffStats>> {
  const stats = new Map<string, DiffStats>(commits.map((c) => [c.id, { additions: 0, deletions: 0, total: 0 }]));
  if (commits.length === 0) return stats;
  const input = commits.map((c) => `${requireObjectId(c.id)}${c.parents.length > 0 ? ` ${requireObjectId(c.parents[0])}` : ''}\n`).join('');
  const { stdout } = await runGit(gitDir, ['diff-tree', '--stdin', '-z', '-r', '--root', '--numstat'], { input });
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

/** The last commit reachable from `revision` that changed the path; null when none did. */
export async function lastCommitForPath(gitDir: string, revision: string, filePath: string): Promise<string | null> {
  const { stdout } = await runGit(gitDir, ['rev-list', '--max-count=1', '--end-of-options', requireRevision(revision), '--', requireRepoPath(filePath)]);
  const id = stdout.toString('utf8').trim();
  return id === '' ? null : id;
}

/** Whether a path names an entry (file or directory) in a commit's tree. */
export async function pathExists(gitDir: string, commit: string, entryPath: string): Promise<boolean> {
  const { exitCode } = await runGit(gitDir, ['cat-file', '-e', '--end-of-options', `${requireObjectId(commit)}:${requireRepoPath(entryPath)}`], { okExitCodes: [1, 128] });
  return exitCode === 0;
}
