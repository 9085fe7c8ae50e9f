// The last commit that changed each of several paths as of a commit, found in one walk over the
// object reader instead of one `git rev-list -1 <commit> -- <path>` process per path, with the
// same answer. With rev-list's default history simplification, a path's walk is a chain: a commit
// whose tree holds the path as one of its parents does (TREESAME) is passed over for its first
// such parent only; the first commit unlike all its parents (a root commit: holding the path at
// all) is the answer. Paths share a chain until a merge sends them to different parents, and a
// step costs a comparison of cached trees, stopped at the first directory both sides share.
// Answers are kept per (commit, path): they never change.
import { requireObjectId, requireRepoPath } from './args.ts';
import { objectCache } from './object-cache.ts';
import { type TreeItem, entryAtPath, objectKey, readCommit, readTreeObject } from './objects.ts';
import { GitError } from './run.ts';
import { runWalk } from './walks.ts';

/**
 * Commits walked per call before the paths still unanswered are left to rev-list (one process
 * each, from where the walk stopped): a path untouched for a very long history costs a bounded
 * walk, not a read of every commit and tree of it.
 */
const MAX_STEPS = 2_000;

const cacheKey = (gitDir: string, commitId: string, path: string) => objectKey(gitDir, 'last-commit', commitId, path);

/** The entry at `components` below a tree; null when there is none. */
async function itemAt(gitDir: string, tree: TreeItem | null, components: readonly string[]): Promise<TreeItem | null> {
  let item = tree;
  for (const name of components) {
    if (item === null || item.type !== 'tree') return null;
    item = (await readTreeObject(gitDir, item.id))?.find((entry) => entry.name === name) ?? null;
  }
  return item;
}

/** Whether two trees hold the same thing (or nothing) at a path, descending only while they differ. */
async function sameAt(gitDir: string, a: TreeItem | null, b: TreeItem | null, components: readonly string[]): Promise<boolean> {
  let x = a;
  let y = b;
  for (const name of components) {
    // One subtree (or nothing on both sides): the same below it.
    if (x?.id === y?.id) return true;
    [x, y] = await Promise.all([itemAt(gitDir, x, [name]), itemAt(gitDir, y, [name])]);
  }
  return x?.id === y?.id && x?.mode === y?.mode;
}

const rootOf = (treeId: string): TreeItem => ({ id: treeId, name: '', type: 'tree', mode: '040000' });

/** rev-list's own answer for one path from a commit, for what the walk left. */
async function revListLast(gitDir: string, commitId: string, path: string): Promise<string | null> {
  const { stdout } = await runWalk(gitDir, ['rev-list', '--max-count=1', '--end-of-options', commitId, '--', path]);
  return stdout.toString('utf8').trim() || null;
}

/**
 * The last commit reachable from `commitId` that changed each wanted path (null: none did). The
 * walk ends once every wanted path is answered; `alongside` paths answered by then are kept too.
 */
export async function lastCommitsForPaths(
  gitDir: string,
  commitId: string,
  wanted: readonly string[],
  alongside: readonly string[] = [],
): Promise<Map<string, string | null>> {
  requireObjectId(commitId);
  const want = wanted.map(requireRepoPath);
  const answers = new Map<string, string | null>();
  const open = new Set<string>();
  for (const path of new Set([...want, ...alongside.map(requireRepoPath)])) {
    const kept = objectCache.get<string | null>(cacheKey(gitDir, commitId, path));
    if (kept !== undefined) answers.set(path, kept);
    else open.add(path);
  }
  // Where each open path's chain has reached: commit id → the paths following it.
  let reached = new Map<string, string[]>(open.size > 0 ? [[commitId, [...open]]] : []);
  for (let steps = 0; reached.size > 0 && want.some((path) => !answers.has(path)); steps++) {
    if (steps === MAX_STEPS) {
      for (const [at, paths] of reached) for (const path of paths) if (want.includes(path)) answers.set(path, await revListLast(gitDir, at, path));
      break;
    }
    const next = new Map<string, string[]>();
    await Promise.all([...reached].map(async ([at, paths]) => {
      const commit = await readCommit(gitDir, at);
      if (commit === null) throw new GitError('failed', `commit ${at} is missing from ${gitDir}`);
      const root = rootOf(commit.tree);
      if (commit.parents.length === 0) {
        const held = await Promise.all(paths.map((path) => itemAt(gitDir, root, path.split('/'))));
        paths.forEach((path, i) => answers.set(path, held[i] === null ? null : at));
        return;
      }
      let left = paths;
      for (const parent of await Promise.all(commit.parents.map((id) => readCommit(gitDir, id)))) {
        if (parent === null) throw new GitError('failed', `a parent of ${at} is missing from ${gitDir}`);
        const same = await Promise.all(left.map((path) => sameAt(gitDir, root, rootOf(parent.tree), path.split('/'))));
        const passed = left.filter((_, i) => same[i]);
        if (passed.length > 0) next.set(parent.id, [...(next.get(parent.id) ?? []), ...passed]);
        left = left.filter((_, i) => !same[i]);
      }
      for (const path of left) answers.set(path, at);
    }));
    reached = next;
  }
  for (const [path, id] of answers) if (open.has(path)) objectCache.set(cacheKey(gitDir, commitId, path), id, 48);
  return answers;
}

/**
 * The last commit that changed each entry of a directory ('' for the root) as of a commit, by
 * entry path, in one walk; null when the directory is not there.
 */
export async function lastCommitsForTree(gitDir: string, commitId: string, dir: string): Promise<Map<string, string | null> | null> {
  const paths = await directoryPaths(gitDir, commitId, dir);
  return paths === null ? null : lastCommitsForPaths(gitDir, commitId, paths);
}

/** The paths of a directory's entries at a commit; null when it is not a directory there. */
export async function directoryPaths(gitDir: string, commitId: string, dir: string): Promise<string[] | null> {
  const tree = await entryAtPath(gitDir, commitId, dir);
  const items = tree?.type === 'tree' ? await readTreeObject(gitDir, tree.id) : null;
  return items?.map((item) => (dir === '' ? item.name : `${dir}/${item.name}`)) ?? null;
}
