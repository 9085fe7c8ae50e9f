// Writes of approvals: a project's settings (one row, written whole), a user's approval of a merge
// request and its withdrawal (MergeRequests::ApprovalService and RemoveApprovalService, 14.x), and
// the reset of a merge request's approvals when its source branch moves, if the project says so.
// An approval, as on the platform, records an `approved` event and the system note "approved this
// merge request", marks the approver's pending to-dos on it done and fires the merge request hooks
// with the action `approved` once no approval is left to give (`approval` before); a withdrawal
// writes "unapproved this merge request" and fires `unapproved` (or `unapproval` when the merge
// request was not approved yet).
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { verifyPassword } from '../../core/auth/secrets.ts';
import type { DB, MergeRequestRow, UserRow } from '../../db/schema.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../events/events.service.ts';
import { noteableOf, todoTargetOf } from '../merge-requests/merge-requests.service.ts';
import { addSystemNote } from '../notes/notes.service.ts';
import { resolveTodos } from '../todos/todos.service.ts';
import { type ApprovalSettings, approvalsLeft, readApprovalSettings } from './merge-request-approvals.finder.ts';

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
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return false;
    await recordEvent(tx, { projectId: mr.project_id, authorId: user.id, action: 'approved', targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title });
    await addSystemNote(tx, noteableOf(mr), 'approved this merge request', user.id);
    await resolveTodos(tx, todoTargetOf(mr), user.id);
    const approved = approvalsLeft(settings, given.length + 1) === 0;
    await enqueueHookEvent(tx.db, { projectId: mr.project_id }, { kind: 'merge_request', mergeRequestId: mr.id, userId: user.id, action: approved ? 'approved' : 'approval' });
    return true;
  });
}

/** Withdraws the user's approval; false when they had not approved (the API's 404). */
export async function unapproveMergeRequest(ctx: ServiceContext, mr: MergeRequestRow, userId: number): Promise<boolean> {
  const settings = await readApprovalSettings(ctx.db, mr.project_id);
  return withTransaction(ctx, async (tx) => {
    const before = await tx.db.selectFrom('merge_request_approvals').select((eb) => eb.fn.countAll<number>().as('n')).where('merge_request_id', '=', mr.id).executeTakeFirstOrThrow();
    const deleted = await tx.db.deleteFrom('merge_request_approvals').where('merge_request_id', '=', mr.id).where('user_id', '=', userId).executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0) return false;
    await addSystemNote(tx, noteableOf(mr), 'unapproved this merge request', userId);
    const wasApproved = approvalsLeft(settings, Number(before.n)) === 0;
    await enqueueHookEvent(tx.db, { projectId: mr.project_id }, { kind: 'merge_request', mergeRequestId: mr.id, userId, action: wasApproved ? 'unapproved' : 'unapproval' });
    return true;
  });
}

/** Drops the approvals of the merge requests whose source branch moved, when the project resets approvals on push. */
export async function resetApprovalsOnPush(db: Kysely<DB>, projectId: number, mergeRequestIds: readonly number[]): Promise<void> {
  if (mergeRequestIds.length === 0) return;
  const settings = await readApprovalSettings(db, projectId);
  if (!settings.reset_approvals_on_push) return;
  await db.deleteFrom('merge_request_approvals').where('merge_request_id', 'in', mergeRequestIds).execute();
}
