// Creating and deleting branches through the API, with the platform's answers (Branches::CreateService,
// DeleteService, DeleteMergedService and the push checks they run, 14.x): every refusal is a 400
// with its message. Each ref moves by compare-and-set, so that of two requests racing on one
// branch exactly one wins; what moved is then recorded as a push.
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { Deps } from '../../core/deps.ts';
import { apiError } from '../../core/errors.ts';
import { ZERO_OID, validBranchName, validRevision } from '../../git/args.ts';
import { branchesContaining } from '../../git/reachability.ts';
import { type RefChange, deleteRef, resolveCommit, resolveRef, updateRef, updateRefs } from '../../git/refs.ts';
import { GitError } from '../../git/run.ts';
import { assertWritable } from '../projects/projects.service.ts';
import { recordRefUpdates } from '../pushes/push.service.ts';
import {
  type RefProtections,
  branchChangeRefusal,
  canPushToBranch,
  isProtectedBranch,
  loadRefProtections,
  pusherOf,
} from '../protected-refs/protected-refs.rules.ts';
import { type BranchRef, mergedBranches, readBranches } from './branches.finder.ts';

const refused = (message: string) => apiError(400, message);
const isConflict = (error: unknown) => error instanceof GitError && error.kind === 'conflict';

const BRANCH_NAME_INVALID = 'Branch name is invalid';
const BRANCH_EXISTS = 'Branch already exists';
/** Checks::BranchCheck's refusal of a protected branch made by one who may only merge into it, from elsewhere. */
const UNPROTECTED_BASE = 'You can only use an existing protected branch ref as the basis of a new protected branch.';

/** Whether a commit is already on some protected branch. */
async function onProtectedBranch(dir: string, commit: string, protections: RefProtections): Promise<boolean> {
  const containing = await branchesContaining(dir, commit);
  return [...containing.keys()].some((ref) => isProtectedBranch(protections, ref.slice('refs/heads/'.length)));
}

/** POST /projects/:id/repository/branches: `branch` from `ref` (a branch, a tag or a commit id). */
export async function createBranch(deps: Deps, project: LoadedProject, actor: Actor, dir: string, branch: string, ref: string): Promise<void> {
  if (!validBranchName(branch)) throw refused(BRANCH_NAME_INVALID);
  const name = `refs/heads/${branch}`;
  if ((await resolveRef(dir, name)) !== null) throw refused(BRANCH_EXISTS);
  const commit = validRevision(ref) ? await resolveCommit(dir, ref) : null;
  if (commit === null) throw refused(`Failed to create branch '${branch}': invalid reference name '${ref}'`);

  const protections = await loadRefProtections(deps.db, project.row.id);
  const pusher = pusherOf(project, actor);
  const refusal = branchChangeRefusal(protections, { branch, kind: 'create', force: false }, pusher, { defaultBranch: project.row.default_branch, viaWeb: true });
  if (refusal !== null) throw refused(refusal);
  // The rules let who may only merge create a protected branch; git tells whether the commit qualifies.
  if (isProtectedBranch(protections, branch) && !canPushToBranch(protections, branch, pusher) && !(await onProtectedBranch(dir, commit, protections))) {
    throw refused(UNPROTECTED_BASE);
  }
  assertWritable(project.row);

  try {
    await updateRef(dir, name, commit, null);
  } catch (error) {
    // Another request created it meanwhile.
    if (isConflict(error)) throw refused(BRANCH_EXISTS);
    throw error;
  }
  await recordRefUpdates(deps, project.row, actor.user.id, [{ ref: name, before: ZERO_OID, after: commit }]);
}

/** DELETE /projects/:id/repository/branches/:branch, once the branch is found. */
export async function deleteBranch(deps: Deps, project: LoadedProject, actor: Actor, dir: string, branch: BranchRef): Promise<void> {
  const protections = await loadRefProtections(deps.db, project.row.id);
  const refusal = branchChangeRefusal(protections, { branch: branch.name, kind: 'delete', force: false }, pusherOf(project, actor), {
    defaultBranch: project.row.default_branch,
    viaWeb: true,
  });
  if (refusal !== null) throw refused(refusal);
  assertWritable(project.row);
  try {
    // Only from where it was found: a branch moved meanwhile keeps what was pushed to it.
    await deleteRef(dir, branch.ref, branch.target);
  } catch (error) {
    if (isConflict(error)) throw refused('Failed to remove branch');
    throw error;
  }
  await recordRefUpdates(deps, project.row, actor.user.id, [{ ref: branch.ref, before: branch.target, after: ZERO_OID }]);
}

/**
 * DELETE /projects/:id/repository/merged_branches: every branch merged into the default branch,
 * except protected ones. The platform queues this; it is done before answering here, which is
 * what callers see once the queue has run.
 */
export async function deleteMergedBranches(deps: Deps, project: LoadedProject, actor: Actor, dir: string): Promise<void> {
  assertWritable(project.row);
  const defaultBranch = project.row.default_branch;
  const [branches, protections] = await Promise.all([readBranches(dir), loadRefProtections(deps.db, project.row.id)]);
  const merged = await mergedBranches(dir, branches, defaultBranch);
  const doomed = branches.list.filter((b) => merged.has(b.ref) && b.name !== defaultBranch && !isProtectedBranch(protections, b.name));
  if (doomed.length === 0) return;

  const change = (b: BranchRef): RefChange => ({ ref: b.ref, newId: null, oldId: b.target });
  let deleted = doomed;
  try {
    await updateRefs(dir, doomed.map(change));
  } catch (error) {
    if (!isConflict(error)) throw error;
    // Some branch moved meanwhile: delete the others one by one, leaving what was pushed.
    deleted = [];
    for (const b of doomed) {
      try {
        await updateRefs(dir, [change(b)]);
        deleted.push(b);
      } catch (single) {
        if (!isConflict(single)) throw single;
      }
    }
  }
  await recordRefUpdates(deps, project.row, actor.user.id, deleted.map((b) => ({ ref: b.ref, before: b.target, after: ZERO_OID })));
}
