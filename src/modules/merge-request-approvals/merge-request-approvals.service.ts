// Writes of approvals: a project's settings (one row, written whole), a user's approval of a merge
// request and its withdrawal (MergeRequests::ApprovalService and RemoveApprovalService, 14.x), and
// the reset of a merge request's approvals when its source branch moves, if the project says so.
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { verifyPassword } from '../../core/auth/secrets.ts';
import type { DB, MergeRequestRow, UserRow } from '../../db/schema.ts';
import { type ApprovalSettings, readApprovalSettings } from './merge-request-approvals.finder.ts';

export async function updateApprovalSettings(ctx: ServiceContext, projectId: number, changes: Partial<ApprovalSettings>): Promise<ApprovalSettings> {
  if (changes.approvals_before_merge !== undefined && changes.approvals_before_merge < 0) {
    throw invalidFields({ approvals_before_merge: ['must be greater than or equal to 0'] });
  }
  return withTransaction(ctx, async (tx) => {
    const settings = { ...(await readApprovalSettings(tx.db, projectId)), ...changes };
    await tx.db
      .insertInto('project_approval_settings')
      .values({ project_id: projectId, ...settings })
      .onConflict((oc) => oc.column('project_id').doUpdateSet(settings))
      .execute();
    return settings;
  });
}

/**
 * Whether the user may approve the merge request now (ApprovalState#eligible_for_approval_by?
 * without rules): a Developer or more who has not yet approved it, and not its author unless the
 * project lets authors approve. `mayApprove` is the approve_merge_request ability.
 */
export function eligibleToApprove(mr: MergeRequestRow, settings: ApprovalSettings, user: { id: number } | null, mayApprove: boolean, approverIds: readonly number[]): boolean {
  if (user === null || !mayApprove || approverIds.includes(user.id)) return false;
  return mr.author_id !== user.id || settings.merge_requests_author_approval;
}

/**
 * Records the user's approval; false when it is refused (not eligible, already given, or the
 * password the project requires is wrong), which the API answers with 401.
 */
export async function approveMergeRequest(ctx: ServiceContext, mr: MergeRequestRow, user: UserRow, options: { mayApprove: boolean; password?: string }): Promise<boolean> {
  const settings = await readApprovalSettings(ctx.db, mr.project_id);
  const given = await ctx.db.selectFrom('merge_request_approvals').select('user_id').where('merge_request_id', '=', mr.id).execute();
  if (!eligibleToApprove(mr, settings, user, options.mayApprove, given.map((row) => row.user_id))) return false;
  if (settings.require_password_to_approve && !(await verifyPassword(options.password ?? '', user.encrypted_password))) return false;
  return withTransaction(ctx, async (tx) => {
    const inserted = await tx.db
      .insertInto('merge_request_approvals')
      .values({ merge_request_id: mr.id, user_id: user.id, created_at: tx.now().toISOString() })
      .onConflict((oc) => oc.columns(['merge_request_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
  });
}

/** Withdraws the user's approval; false when they had not approved (the API's 404). */
export async function unapproveMergeRequest(ctx: ServiceContext, mr: MergeRequestRow, userId: number): Promise<boolean> {
  return withTransaction(ctx, async (tx) => {
    const deleted = await tx.db.deleteFrom('merge_request_approvals').where('merge_request_id', '=', mr.id).where('user_id', '=', userId).executeTakeFirst();
    return Number(deleted.numDeletedRows) > 0;
  });
}

/** Drops the approvals of the merge requests whose source branch moved, when the project resets approvals on push. */
export async function resetApprovalsOnPush(db: Kysely<DB>, projectId: number, mergeRequestIds: readonly number[]): Promise<void> {
  if (mergeRequestIds.length === 0) return;
  const settings = await readApprovalSettings(db, projectId);
  if (!settings.reset_approvals_on_push) return;
  await db.deleteFrom('merge_request_approvals').where('merge_request_id', 'in', mergeRequestIds).execute();
}
