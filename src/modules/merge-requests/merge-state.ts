// What git says of an open merge request: the heads of its branches, their merge base (the
// diff refs), and whether the source merges into the target without conflicts (merge-tree).
import { validBranchName } from '../../git/args.ts';
import { mergeBase, mergeTrees } from '../../git/merges.ts';
import { resolveRef } from '../../git/refs.ts';
import type { MergeRequestRow } from '../../db/schema.ts';

export interface GitState {
  sha: string | null;
  base_sha: string | null;
  start_sha: string | null;
  head_sha: string | null;
  merge_status: 'can_be_merged' | 'cannot_be_merged';
}

export function branchHead(gitDir: string, branch: string): Promise<string | null> {
  return validBranchName(branch) ? resolveRef(gitDir, `refs/heads/${branch}`) : Promise.resolve(null);
}

/** The diff refs of a source and a target head. */
export async function diffRefs(gitDir: string, source: string, target: string): Promise<Pick<GitState, 'base_sha' | 'start_sha' | 'head_sha'>> {
  return { base_sha: await mergeBase(gitDir, target, source), start_sha: target, head_sha: source };
}

/** The merge request's state in git now; a missing branch leaves the last known commits and cannot be merged. */
export async function readGitState(gitDir: string, mr: Pick<MergeRequestRow, 'source_branch' | 'target_branch' | 'sha' | 'base_sha' | 'start_sha' | 'head_sha'>): Promise<GitState> {
  const [source, target] = await Promise.all([branchHead(gitDir, mr.source_branch), branchHead(gitDir, mr.target_branch)]);
  if (source === null || target === null) {
    return { sha: source ?? mr.sha, base_sha: mr.base_sha, start_sha: mr.start_sha, head_sha: mr.head_sha, merge_status: 'cannot_be_merged' };
  }
  const refs = await diffRefs(gitDir, source, target);
  const { clean } = await mergeTrees(gitDir, target, source);
  return { sha: source, ...refs, merge_status: clean ? 'can_be_merged' : 'cannot_be_merged' };
}
