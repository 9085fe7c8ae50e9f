// Rebasing (14.x PUT …/rebase, MergeRequest#rebase_async and MergeRequests::RebaseService): the
// request marks the merge request rebase_in_progress and enqueues the job in one transaction (a
// second request meanwhile is the platform's 409 resource lock); the job replays the source
// branch onto the target in git, moves the source branch by compare-and-set from the head it
// rebased, records the change as a push (`skip_ci` is the push option ci.skip), and clears the
// flag, with the platform's merge_error when the rebase failed.
import { Type } from '@sinclair/typebox';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { apiError } from '../../core/errors.ts';
import type { MergeRequestRow, ProjectRow } from '../../db/schema.ts';
import { rebaseOnto } from '../../git/rebase.ts';
import { type RefUpdate, updateRefs } from '../../git/refs.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import { GitError } from '../../git/run.ts';
import { defineJobKind, enqueue } from '../../jobs/queue.ts';
import { changeRefs } from '../pushes/push.service.ts';
import { branchHead } from './merge-state.ts';

/** The platform's merge_error for a rebase that failed (conflicts or otherwise). */
export const REBASE_ERROR = 'Rebase failed: Rebase locally, resolve all conflicts, then push the branch.';

const RebasePayload = Type.Object({ mergeRequestId: Type.Integer(), userId: Type.Integer(), skipCi: Type.Boolean() }, { additionalProperties: false });

/** Ends the rebase: the flag cleared, the error (or none) kept. */
async function finish(ctx: ServiceContext, mergeRequestId: number, error: string | null, complete?: (tx: ServiceContext) => Promise<void>): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db.updateTable('merge_requests').set({ rebase_in_progress: false, merge_error: error }).where('id', '=', mergeRequestId).execute();
    if (complete) await complete(tx);
  });
}

class RebaseFailed extends Error {}

export const rebaseJob = defineJobKind({
  name: 'merge_requests.rebase',
  payload: RebasePayload,
  maxAttempts: 3,
  async run(ctx, { mergeRequestId, userId, skipCi }, job) {
    const complete = (tx: ServiceContext) => job.complete(tx.db);
    const mr = await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).executeTakeFirst();
    if (!mr || !mr.rebase_in_progress) return void (await withTransaction(ctx, complete));
    const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', mr.project_id).executeTakeFirst();
    const user = await ctx.db.selectFrom('users').select(['name', 'email', 'commit_email']).where('id', '=', userId).executeTakeFirst();
    const gitDir = project ? existingProjectRepository(ctx.config.repositoryStorages, project) : null;
    try {
      if (mr.state !== 'opened' || !project || !user || gitDir === null) throw new RebaseFailed();
      await rebaseBranch(ctx, gitDir, project, mr, userId, { name: user.name, email: user.commit_email || user.email }, skipCi);
    } catch (error) {
      // Anything else is retried by the queue, as a storage move holding the repository is (the
      // change of refs takes a push lease); out of attempts, the rebase fails with its merge_error.
      if (!(error instanceof RebaseFailed)) throw error;
      return finish(ctx, mr.id, REBASE_ERROR, complete);
    }
    await finish(ctx, mr.id, null, complete);
  },
  async failed(ctx, { mergeRequestId }) {
    await finish(ctx, mergeRequestId, REBASE_ERROR);
  },
});

/** Replays the source onto the target and moves the source branch (from the head that was rebased only). */
async function rebaseBranch(ctx: ServiceContext, gitDir: string, project: Pick<ProjectRow, 'id' | 'repository_storage'>, mr: MergeRequestRow, userId: number, committer: { name: string; email: string }, skipCi: boolean): Promise<void> {
  const [source, target] = await Promise.all([branchHead(gitDir, mr.source_branch), branchHead(gitDir, mr.target_branch)]);
  if (source === null || target === null) throw new RebaseFailed();
  const result = await rebaseOnto(gitDir, { upstream: target, head: source, committer, date: ctx.now() });
  if (!result.ok) throw new RebaseFailed();
  if (result.head === source) return;
  const ref = `refs/heads/${mr.source_branch}`;
  await changeRefs(
    ctx,
    project,
    userId,
    [{ ref, before: source }],
    async (): Promise<RefUpdate[]> => {
      try {
        await updateRefs(gitDir, [{ ref, newId: result.head, oldId: source }]);
      } catch (error) {
        // Pushed to meanwhile: what was rebased is no longer the branch.
        if (error instanceof GitError && error.kind === 'conflict') throw new RebaseFailed();
        throw error;
      }
      return [{ ref, before: source, after: result.head }];
    },
    { pushOptions: skipCi ? ['ci.skip'] : [] },
  );
}

/** Marks the merge request as being rebased and enqueues the rebase, or refuses while one is under way (or it is not open). */
export async function requestRebase(ctx: ServiceContext, mr: MergeRequestRow, userId: number, skipCi: boolean): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const marked = await tx.db
      .updateTable('merge_requests')
      .set({ rebase_in_progress: true })
      .where('id', '=', mr.id)
      .where('state', '=', 'opened')
      .where('rebase_in_progress', '=', false)
      .executeTakeFirst();
    // MergeRequest#rebase_async's StaleObjectError, which the API answers with its resource lock 409.
    if (Number(marked.numUpdatedRows) === 0) throw apiError(409, '409 Conflict: Resource lock');
    await enqueue(tx.db, rebaseJob, { mergeRequestId: mr.id, userId, skipCi });
  });
}
