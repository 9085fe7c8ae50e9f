// Pure branch → branch entity, from what the route loaded once for the whole list.
import { presentCommit } from '../../domain/commit-entity.ts';
import { type Pusher, type RefProtections, canPushToBranch, developersCan, isProtectedBranch } from '../../domain/ref-protection.ts';
import { treeWebUrl } from '../../domain/urls.ts';
import type { BranchRef } from './branches.finder.ts';
import type { Branch } from './branches.schemas.ts';

export interface BranchView {
  protections: RefProtections;
  /** The caller, as the push rules see them. */
  pusher: Pusher;
  defaultBranch: string | null;
  /** Full names of the branches merged into the default branch. */
  merged: ReadonlySet<string>;
  projectWebUrl: string;
}

export function presentBranch(branch: BranchRef, view: BranchView): Branch {
  const { protections, pusher } = view;
  return {
    name: branch.name,
    commit: presentCommit(branch.details, view.projectWebUrl, branch.details.trailers),
    merged: view.merged.has(branch.ref),
    protected: isProtectedBranch(protections, branch.name),
    developers_can_push: developersCan(protections, 'push', branch.name),
    developers_can_merge: developersCan(protections, 'merge', branch.name),
    can_push: canPushToBranch(protections, branch.name, pusher),
    default: branch.name === view.defaultBranch,
    web_url: treeWebUrl(view.projectWebUrl, branch.name),
  };
}
