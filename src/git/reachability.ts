// Which branches a commit reaches, and which branches reach a commit: history walks, one git
// process each (in turn with the other walks, walks.ts), however many branches there are. Which
// commits a commit reaches never changes, so that answer is also kept per pair of commit ids.
import { requireObjectId } from './args.ts';
import { objectCache } from './object-cache.ts';
import { objectKey, openRepository } from './objects.ts';
import { runWalk } from './walks.ts';

/** Branches passing a for-each-ref filter: full name → head commit. */
async function branchHeads(gitDir: string, filter: string): Promise<Map<string, string>> {
  const { stdout } = await runWalk(gitDir, ['for-each-ref', '--format=%(refname)%00%(objectname)', filter, '--', 'refs/heads/']);
  const heads = new Map<string, string>();
  for (const line of stdout.toString('utf8').split('\n')) {
    const [ref, id] = line.split('\0');
    if (id !== undefined) heads.set(ref, id);
  }
  return heads;
}

/** The branches from which `commit` is reachable: full name → head. */
export async function branchesContaining(gitDir: string, commit: string): Promise<Map<string, string>> {
  return branchHeads(gitDir, `--contains=${requireObjectId(commit)}`);
}

/**
 * Which of these commits `head` reaches (itself included), as for-each-ref --merged=<head> tells
 * of refs at them. Kept per (head, commit): a list asked again, or with one more branch at a known
 * commit or at the head itself (a branch just made from it), walks nothing; otherwise one rev-list
 * of what head reaches answers for every commit not known yet.
 */
export async function reachedFrom(gitDir: string, head: string, commits: readonly string[]): Promise<Set<string>> {
  requireObjectId(head);
  const repo = openRepository(gitDir);
  const key = (id: string) => objectKey(repo, 'reaches', head, id);
  const reached = new Set<string>();
  const unknown: string[] = [];
  for (const id of new Set(commits.map(requireObjectId))) {
    const known = id === head || objectCache.get<boolean>(key(id));
    if (known === undefined) unknown.push(id);
    else if (known) reached.add(id);
  }
  if (unknown.length === 0) return reached;
  const { stdout } = await runWalk(gitDir, ['rev-list', '--end-of-options', head, '--']);
  const all = new Set(stdout.toString('utf8').split('\n'));
  for (const id of unknown) {
    objectCache.set(key(id), all.has(id), 8);
    if (all.has(id)) reached.add(id);
  }
  return reached;
}
