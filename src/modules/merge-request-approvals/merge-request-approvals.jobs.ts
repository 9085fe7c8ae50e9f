// The reset of approvals after a push moved merge requests' source branch (MergeRequests::
// RefreshService#reset_approvals_if_needed), run by a worker after the push is recorded.
import { withTransaction } from '../../core/context.ts';
import { APPROVALS_RESET } from '../../jobs/merge-request-work.ts';
import { defineJobKind } from '../../jobs/queue.ts';
import { resetApprovalsOnPush } from './merge-request-approvals.service.ts';

export const resetApprovalsJob = defineJobKind({
  ...APPROVALS_RESET,
  async run(ctx, { projectId, mergeRequestIds }, job) {
    await withTransaction(ctx, async (tx) => {
      await resetApprovalsOnPush(tx.db, projectId, mergeRequestIds);
      await job.complete(tx.db);
    });
  },
});
