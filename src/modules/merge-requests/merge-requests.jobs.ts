// The merge status check (14.x MergeRequests::MergeabilityCheckService): for open merge requests
// of a project, the branches' heads and whether the source merges cleanly, read from git first,
// then written in one transaction that completes the job.
import { withTransaction } from '../../core/context.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import { MERGE_STATUS_CHECK } from '../../jobs/merge-status-check.ts';
import { defineJobKind } from '../../jobs/queue.ts';
import { openMergeRequestsOnBranches } from './merge-requests.finder.ts';
import { type GitState, readGitState } from './merge-state.ts';

export { rebaseJob } from './rebase.ts';

export const checkMergeStatusJob = defineJobKind({
  ...MERGE_STATUS_CHECK,
  async run(ctx, { projectId, branches, mergeRequestIds }, job) {
    const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', projectId).executeTakeFirst();
    const gitDir = project ? existingProjectRepository(ctx.config.repositoryStorages, project) : null;
    let mrs: MergeRequestRow[] = [];
    if (gitDir !== null) {
      mrs = await openMergeRequestsOnBranches(ctx.db, projectId, branches ?? []);
      if (mergeRequestIds && mergeRequestIds.length > 0) {
        const more = await ctx.db.selectFrom('merge_requests').selectAll().where('id', 'in', mergeRequestIds).where('state', '=', 'opened').execute();
        mrs.push(...more.filter((m) => !mrs.some((known) => known.id === m.id)));
      }
    }
    const states: [MergeRequestRow, GitState][] = [];
    for (const mr of mrs) states.push([mr, await readGitState(gitDir as string, mr)]);
    await withTransaction(ctx, async (tx) => {
      for (const [mr, state] of states) {
        // Only while it is still open, and still on the branches the state was read for.
        await tx.db
          .updateTable('merge_requests')
          .set(state)
          .where('id', '=', mr.id)
          .where('state', '=', 'opened')
          .where('source_branch', '=', mr.source_branch)
          .where('target_branch', '=', mr.target_branch)
          .execute();
      }
      await job.complete(tx.db);
    });
  },
});
