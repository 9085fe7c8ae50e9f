// The last commit that changed each of several paths as of a commit, found in one walk over the
// object reader instead of one `git rev-list -1 <commit> -- <path>` process per path, with the
// same answer. With rev-list's default history simplification, a path's walk is a chain: a commit
// whose tree holds the path as one of its parents does (TREESAME) is passed over for its first
// such parent only; the first commit unlike all its parents (a root commit: holding the path at
// all) is the answer. Paths share a chain until a merge sends them to different parents; a step
// compares cached trees, stopping at the first directory both sides share, and looks at a
// directory shared by several paths once. Answers are kept per (commit, path): they never change.
import { requireObjectId, requireRepoPath } from './args.ts';
import { objectCache } from './object-cache.ts';
import {
  type Repository,
  type TreeItem,
  childOf,
  entryAtPath,
  isCommitCached,
  objectKey,
  openRepository,
  prefetchFirstParents,
  readCommit,
  readTreeObject,
  rootEntry,
} from './objects.ts';
import { GitError } from './run.ts';
import { runWalk } from './walks.ts';

/**
 * Commits walked per call before the paths still unanswered are left to rev-list (one process
 * each, from where the walk stopped): a path untouched for a very long history costs a bounded
 * walk, not a read of every commit and tree of it.
 */
const MAX_STEPS = 1_000;
/** Commits of the first-parent line read ahead in one batch when the walk reaches one not cached. */
const READ_AHEAD = 16;

const cacheKey = (repo: Repository, commitId: string, path: string) => objectKey(repo, 'last-commit', commitId, path);

/** Two trees compared path by path; what several paths share is looked up once. */
class TreePair {
  private readonly repo: Repository;
  /** Path → the entries there in both trees. */
  private readonly entries = new Map<string, Promise<[TreeItem | null, TreeItem | null]>>();

  /** b null: the empty tree, which a root commit is compared with. */
  constructor(repo: Repository, a: string, b: string | null) {
    this.repo = repo;
    this.entries.set('', Promise.resolve([rootEntry(a), b === null ? null : rootEntry(b)]));
  }

  private at(path: string): Promise<[TreeItem | null, TreeItem | null]> {
    let found = this.entries.get(path);
    if (found === undefined) {
      const slash = path.lastIndexOf('/');
      const name = path.slice(slash + 1);
      found = this.at(slash === -1 ? '' : path.slice(0, slash)).then(([x, y]) => Promise.all([childOf(this.repo, x, name), childOf(this.repo, y, name)]));
      this.entries.set(path, found);
    }
    return found;
  }

  /** Whether both trees hold the same thing (or nothing) at the path. */
  async same(path: string): Promise<boolean> {
    const components = path.split('/');
    for (let depth = 0; depth < components.length; depth++) {
      const [x, y] = await this.at(components.slice(0, depth).join('/'));
      // One subtree (or nothing on both sides): the same below it.
      if (x?.id === y?.id) return true;
    }
    const [x, y] = await this.at(path);
    return x?.id === y?.id && x?.mode === y?.mode;
  }
}

/** rev-list's own answer for one path from a commit, for what the walk left. */
async function revListLast(repo: Repository, commitId: string, path: string): Promise<string | null> {
  const { stdout } = await runWalk(repo.dir, ['rev-list', '--max-count=1', '--end-of-options', commitId, '--', path]);
  return stdout.toString('utf8').trim() || null;
}

async function readKnownCommit(repo: Repository, id: string) {
  if (!isCommitCached(repo, id)) await prefetchFirstParents(repo, id, READ_AHEAD);
  const commit = await readCommit(repo, id);
  if (commit === null) throw new GitError('failed', `commit ${id} is missing from ${repo.dir}`);
  return commit;
}

/**
 * The last commit reachable from `commitId` that changed each wanted path (null: none did). The
 * walk ends once every wanted path is answered; `alongside` paths answered by then are kept too.
 */
export async function lastCommitsForPaths(
  repo: Repository,
  commitId: string,
  wanted: readonly string[],
  alongside: readonly string[] = [],
): Promise<Map<string, string | null>> {
  requireObjectId(commitId);
  const want = wanted.map(requireRepoPath);
  const answers = new Map<string, string | null>();
  const open = new Set<string>();
  for (const path of new Set([...want, ...alongside.map(requireRepoPath)])) {
    const kept = objectCache.get<string | null>(cacheKey(repo, commitId, path));
    if (kept !== undefined) answers.set(path, kept);
    else open.add(path);
  }
  // Where each open path's chain has reached: commit id → the paths following it.
  let reached = new Map<string, string[]>(open.size > 0 ? [[commitId, [...open]]] : []);
  for (let steps = 0; reached.size > 0 && want.some((path) => !answers.has(path)); steps++) {
    if (steps === MAX_STEPS) {
      for (const [at, paths] of reached) for (const path of paths) if (want.includes(path)) answers.set(path, await revListLast(repo, at, path));
      break;
    }
    const next = new Map<string, string[]>();
    await Promise.all([...reached].map(async ([at, paths]) => {
      const commit = await readKnownCommit(repo, at);
      if (commit.parents.length === 0) {
        const empty = new TreePair(repo, commit.tree, null);
        const held = await Promise.all(paths.map((path) => empty.same(path)));
        paths.forEach((path, i) => answers.set(path, held[i] ? null : at));
        return;
      }
      let left = paths;
      for (const parentId of commit.parents) {
        if (left.length === 0) break;
        const pair = new TreePair(repo, commit.tree, (await readKnownCommit(repo, parentId)).tree);
        const same = await Promise.all(left.map((path) => pair.same(path)));
        const passed = left.filter((_, i) => same[i]);
        if (passed.length > 0) next.set(parentId, [...(next.get(parentId) ?? []), ...passed]);
        left = left.filter((_, i) => !same[i]);
      }
      for (const path of left) answers.set(path, at);
    }));
    reached = next;
  }
  for (const [path, id] of answers) if (open.has(path)) objectCache.set(cacheKey(repo, commitId, path), id, 48);
  return answers;
}

/** The paths of a directory's entries at a commit; null when it is not a directory there. */
export async function directoryPaths(repo: Repository, commitId: string, dir: string): Promise<string[] | null> {
  const tree = await entryAtPath(repo, commitId, dir);
  const items = tree?.type === 'tree' ? (await readTreeObject(repo, tree.id))?.items : null;
  return items?.map((item) => (dir === '' ? item.name : `${dir}/${item.name}`)) ?? null;
}

/**
 * The last commit that changed each entry of a directory ('' for the root) as of a commit, by
 * entry path, in one walk; null when the directory is not there.
 */
export async function lastCommitsForTree(gitDir: string, commitId: string, dir: string): Promise<Map<string, string | null> | null> {
  const repo = openRepository(gitDir);
  const paths = await directoryPaths(repo, commitId, dir);
  return paths === null ? null : lastCommitsForPaths(repo, commitId, paths);
}
