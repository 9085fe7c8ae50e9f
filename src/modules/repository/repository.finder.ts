// Reading a repository's tree.
import { readTree } from '../../git/commits.ts';
import type { TreeObject } from './repository.schemas.ts';

/**
 * The entries of a directory at a commit (the root for an empty path), or every entry below it
 * with `recursive`, in git's order. A path that is not a directory there has no entries.
 */
export async function findTree(dir: string, commitId: string, path: string, recursive: boolean): Promise<TreeObject[]> {
  const entries = await readTree(dir, commitId, path, { recursive });
  return (entries ?? []).map((e) => ({ id: e.id, name: e.name, type: e.type, path: e.path, mode: e.mode }));
}
