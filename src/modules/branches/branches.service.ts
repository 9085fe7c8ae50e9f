// Creating and deleting branches through the API, with the platform's answers (Branches::CreateService,
// DeleteService, DeleteMergedService and the push checks they run, 14.x): every refusal is a 400
// with its message. Each ref moves by compare-and-set, so that of two requests racing on one
// branch exactly one wins; what moved is then recorded as a push.
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { Type } from '@sinclair/typebox';
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import { ZERO_OID, validBranchName, validRevision } from '../../git/args.ts';
import { branchesContaining } from '../../git/reachability.ts';
import { type RefChange, type RefUpdate, deleteRef, hasBranches, resolveCommit, resolveRef, updateRef, updateRefs } from '../../git/refs.ts';
import { readDefaultBranch } from '../../git/repository.ts';
import { GitError } from '../../git/run.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import { defineJobKind, enqueue } from '../../jobs/queue.ts';
import { assertWritable } from '../../domain/project-repository.ts';
import { commitChange } from '../commits/commits.service.ts';
import { type RefProtections, branchChangeRefusal, canPushToBranch, isProtectedBranch, pusherOf } from '../../domain/ref-protection.ts';
import { changeRefs } from '../pushes/push.service.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
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

const invalidReference = (branch: string, ref: string) => refused(`Failed to create branch '${branch}': invalid reference name '${ref}'`);

/**
 * An empty repository first gets its default branch (the project's, else HEAD's, else `main`) with
 * a commit adding an empty README.md, as the platform's Branches::CreateService does; that commit
 * is recorded like a first push, and the requested branch is then made from it. The platform makes
 * the README before looking at the request; here what would refuse it comes first (a ref other
 * than the default branch, a protected name), so that a refused request writes nothing. Returns
 * the project as it then is, or null when another request gave the repository a branch meanwhile.
 */
async function startEmptyRepository(ctx: ServiceContext, project: LoadedProject, actor: Actor, dir: string, branch: string, ref: string): Promise<LoadedProject | null> {
  const defaultBranch = project.row.default_branch ?? (await readDefaultBranch(dir)) ?? 'main';
  if (![defaultBranch, `refs/heads/${defaultBranch}`, 'HEAD'].includes(ref)) throw invalidReference(branch, ref);
  if (branch !== defaultBranch) {
    const protections = await loadRefProtections(ctx.db, project.row.id);
    const refusal = branchChangeRefusal(protections, { branch, kind: 'create', force: false }, pusherOf(project, actor), { defaultBranch, viaWeb: true });
    if (refusal !== null) throw refused(refusal);
  }
  try {
    await commitChange(ctx, project, { branch: defaultBranch, actions: [{ action: 'create', filePath: 'README.md' }], message: 'Add README.md' });
  } catch (error) {
    if (await hasBranches(dir)) return null;
    throw error;
  }
  const row = await ctx.db.selectFrom('projects').selectAll().where('id', '=', project.row.id).executeTakeFirstOrThrow();
  return { ...project, row };
}

/**
 * POST /projects/:id/repository/branches: `branch` from `ref` (a branch, a tag or a commit id).
 * Returns the project as it then is (an empty repository's first branch changes it).
 */
export async function createBranch(ctx: ServiceContext, given: LoadedProject, dir: string, branch: string, ref: string): Promise<LoadedProject> {
  const actor = requireActor(ctx);
  if (!validBranchName(branch)) throw refused(BRANCH_NAME_INVALID);
  let project = given;
  if (!(await hasBranches(dir))) {
    const started = await startEmptyRepository(ctx, given, actor, dir, branch, ref);
    // Asked for the default branch itself, the caller has it (the platform, having made it, answers "exists").
    if (started?.row.default_branch === branch) return started;
    project = started ?? given;
  }
  const name = `refs/heads/${branch}`;
  if ((await resolveRef(dir, name)) !== null) throw refused(BRANCH_EXISTS);
  const commit = validRevision(ref) ? await resolveCommit(dir, ref) : null;
  if (commit === null) throw invalidReference(branch, ref);

  const protections = await loadRefProtections(ctx.db, project.row.id);
  const pusher = pusherOf(project, actor);
  const refusal = branchChangeRefusal(protections, { branch, kind: 'create', force: false }, pusher, { defaultBranch: project.row.default_branch, viaWeb: true });
  if (refusal !== null) throw refused(refusal);
  // The rules let who may only merge create a protected branch; git tells whether the commit qualifies.
  if (isProtectedBranch(protections, branch) && !canPushToBranch(protections, branch, pusher) && !(await onProtectedBranch(dir, commit, protections))) {
    throw refused(UNPROTECTED_BASE);
  }

  // Under a push lease (changeRefs): refused while a storage move holds the repository.
  await changeRefs(ctx, project.row, actor.user.id, [{ ref: name, before: ZERO_OID }], async () => {
    try {
      await updateRef(dir, name, commit, null);
    } catch (error) {
      // Another request created it meanwhile.
      if (isConflict(error)) throw refused(BRANCH_EXISTS);
      throw error;
    }
    return [{ ref: name, before: ZERO_OID, after: commit }];
  });
  return project;
}

/** DELETE /projects/:id/repository/branches/:branch, once the branch is found. */
export async function deleteBranch(ctx: ServiceContext, project: LoadedProject, dir: string, branch: BranchRef): Promise<void> {
  const actor = requireActor(ctx);
  const protections = await loadRefProtections(ctx.db, project.row.id);
  const refusal = branchChangeRefusal(protections, { branch: branch.name, kind: 'delete', force: false }, pusherOf(project, actor), {
    defaultBranch: project.row.default_branch,
    viaWeb: true,
  });
  if (refusal !== null) throw refused(refusal);
  await changeRefs(ctx, project.row, actor.user.id, [{ ref: branch.ref, before: branch.target }], async () => {
    try {
      // Only from where it was found: a branch moved meanwhile keeps what was pushed to it.
      await deleteRef(dir, branch.ref, branch.target);
    } catch (error) {
      if (isConflict(error)) throw refused('Failed to remove branch');
      throw error;
    }
    return [{ ref: branch.ref, before: branch.target, after: ZERO_OID }];
  });
}

const DeleteMergedPayload = Type.Object({ projectId: Type.Integer(), userId: Type.Integer() }, { additionalProperties: false });

/**
 * DELETE /projects/:id/repository/merged_branches, queued as on the platform: every branch merged
 * into the default branch, except the default branch and protected ones, as the branches stand
 * when the job runs. A branch that moves meanwhile is left alone.
 */
export const deleteMergedBranchesJob = defineJobKind({
  name: 'branches.delete_merged',
  payload: DeleteMergedPayload,
  async run(ctx, { projectId, userId }) {
    const row = await ctx.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
    const dir = row ? existingProjectRepository(ctx.config.repositoryStorages, row) : null;
    if (!row || dir === null) return;
    const defaultBranch = row.default_branch;
    const [branches, protections] = await Promise.all([readBranches(dir), loadRefProtections(ctx.db, row.id)]);
    const merged = await mergedBranches(dir, branches, defaultBranch);
    const doomed = branches.list.filter((b) => merged.has(b.ref) && b.name !== defaultBranch && !isProtectedBranch(protections, b.name));
    if (doomed.length === 0) return;

    const change = (b: BranchRef): RefChange => ({ ref: b.ref, newId: null, oldId: b.target });
    const gone = (b: BranchRef): RefUpdate => ({ ref: b.ref, before: b.target, after: ZERO_OID });
    // Refused while a storage move holds the repository: the queue's retry comes after it.
    await changeRefs(ctx, row, userId, doomed.map((b) => ({ ref: b.ref, before: b.target })), async () => {
      try {
        await updateRefs(dir, doomed.map(change));
        return doomed.map(gone);
      } catch (error) {
        if (!isConflict(error)) throw error;
      }
      // Some branch moved meanwhile: delete the others one by one, leaving what was pushed.
      const deleted: RefUpdate[] = [];
      for (const b of doomed) {
        try {
          await updateRefs(dir, [change(b)]);
          deleted.push(gone(b));
        } catch (single) {
          if (!isConflict(single)) throw single;
        }
      }
      return deleted;
    });
  },
});

/** Queues the deletion of the merged branches (refused at once while the repository is read-only). */
export async function deleteMergedBranches(ctx: ServiceContext, project: LoadedProject): Promise<void> {
  const actor = requireActor(ctx);
  assertWritable(project.row);
  await enqueue(ctx.db, deleteMergedBranchesJob, { projectId: project.row.id, userId: actor.user.id }, { dedupeKey: String(project.row.id) });
}
