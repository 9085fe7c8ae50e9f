// Cherry-picking and reverting a commit onto a branch head without a work tree, as the platform's
// Gitaly does for UserCherryPick and UserRevert: the commit's change (against its first parent, the
// mainline, when it is a merge) is merged into the head's tree; a conflict, or a change the head
// already holds (a tree left as it was), is refused. Only objects are written; no ref moves here.
import { requireObjectId } from './args.ts';
import { getCommit } from './commits.ts';
import { commitTree, mergeTreesOnBase, writeEmptyTree } from './merges.ts';
import { type Identity } from './signature.ts';

export type PickKind = 'cherry_pick' | 'revert';

/** Why a pick makes no commit: the change does not apply, or applying it changes nothing. */
export type PickRefusal = 'conflict' | 'empty';

export type PickTree = { ok: true; tree: string } | { ok: false; reason: PickRefusal };

/** The tree the head would have with the commit's change applied (or undone). */
export async function pickTree(gitDir: string, kind: PickKind, commitId: string, head: string): Promise<PickTree> {
  const [commit, onto] = await Promise.all([getCommit(gitDir, requireObjectId(commitId)), getCommit(gitDir, requireObjectId(head))]);
  if (commit === null || onto === null) throw new Error('pickTree needs existing commits');
  const mainline = commit.parents[0];
  const parentTree = mainline === undefined ? await writeEmptyTree(gitDir) : (await getCommit(gitDir, mainline))?.tree;
  if (parentTree === undefined) throw new Error(`missing parent of ${commitId}`);
  // A cherry-pick goes from the parent to the commit; a revert the other way.
  const [base, theirs] = kind === 'cherry_pick' ? [parentTree, commit.tree] : [commit.tree, parentTree];
  const merged = await mergeTreesOnBase(gitDir, base, onto.tree, theirs);
  if (!merged.clean) return { ok: false, reason: 'conflict' };
  if (merged.tree === onto.tree) return { ok: false, reason: 'empty' };
  return { ok: true, tree: merged.tree };
}

export interface PickCommitRequest {
  tree: string;
  head: string;
  message: string;
  author: Identity;
  /** The author's own date (a cherry-pick keeps the picked commit's); the commit's time otherwise. */
  authorDate?: Date;
  committer: Identity;
  date: Date;
}

/** Writes the pick's commit on the head (no ref moves); its id. */
export function writePickCommit(gitDir: string, request: PickCommitRequest): Promise<string> {
  return commitTree(gitDir, { tree: request.tree, parents: [request.head], message: request.message, author: request.author, authorDate: request.authorDate, committer: request.committer, date: request.date });
}
