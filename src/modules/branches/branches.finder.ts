// Reads of branches: all of them with their commits (ref-details.ts), and which of them the default
// branch has merged (kept per pair of commits, reachability.ts), each kept while the repository's
// branches stay the same.
import { reachedFrom } from '../../git/reachability.ts';
import { readRefsCached } from '../../git/ref-cache.ts';
import { type DetailedRef, listDetailedRefs } from '../../git/ref-details.ts';

/** A branch with the commit it points at (a branch of anything else is not listed). */
export type BranchRef = DetailedRef & { details: NonNullable<DetailedRef['details']> };

export interface Branches {
  /** By name, in byte order. */
  list: readonly BranchRef[];
  byName: ReadonlyMap<string, BranchRef>;
}

const NO_BRANCHES: Branches = { list: [], byName: new Map() };
const isBranch = (ref: DetailedRef): ref is BranchRef => ref.details !== null;

/** Every branch of the repository; a project without one (dir null) has none. Shared: not to be changed. */
export function readBranches(dir: string | null): Promise<Branches> {
  if (dir === null) return Promise.resolve(NO_BRANCHES);
  return readRefsCached(dir, 'branch', 'branches', async () => {
    const list = (await listDetailedRefs(dir, 'branch')).filter(isBranch);
    return { list, byName: new Map(list.map((b) => [b.name, b])) };
  });
}

/**
 * The full names of the branches merged into the default branch: their head is reachable from the
 * default branch's head and is not that very commit, so the default branch itself, and any branch
 * level with it, are not merged.
 */
export function mergedBranches(dir: string | null, branches: Branches, defaultBranch: string | null): Promise<ReadonlySet<string>> {
  const head = defaultBranch === null ? undefined : branches.byName.get(defaultBranch)?.details.id;
  if (dir === null || head === undefined) return Promise.resolve(new Set());
  return readRefsCached(dir, 'branch', `merged:${head}`, async () => {
    const reached = await reachedFrom(dir, head, branches.list.map((b) => b.details.id));
    return new Set(branches.list.filter((b) => b.details.id !== head && reached.has(b.details.id)).map((b) => b.ref));
  });
}
