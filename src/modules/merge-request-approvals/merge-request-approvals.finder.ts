// Reads of approvals: a project's approval settings (the defaults when it has no row), and who
// approved a merge request, oldest approval first, with their users in the same query.
import type { Kysely } from 'kysely';
import type { DB, UserRow } from '../../db/schema.ts';

export interface ApprovalSettings {
  approvals_before_merge: number;
  reset_approvals_on_push: boolean;
  disable_overriding_approvers_per_merge_request: boolean;
  merge_requests_author_approval: boolean;
  merge_requests_disable_committers_approval: boolean;
  require_password_to_approve: boolean;
}

/** A new project's settings on the platform (14.x): nothing required, approvals reset on push, authors do not approve their own. */
export const DEFAULT_APPROVAL_SETTINGS: ApprovalSettings = Object.freeze({
  approvals_before_merge: 0,
  reset_approvals_on_push: true,
  disable_overriding_approvers_per_merge_request: false,
  merge_requests_author_approval: false,
  merge_requests_disable_committers_approval: false,
  require_password_to_approve: false,
});

/** How many approvals the merge request still needs (ApprovalState#approvals_left without rules); 0 is approved. */
export const approvalsLeft = (settings: ApprovalSettings, approvals: number) => Math.max(0, settings.approvals_before_merge - approvals);

export async function readApprovalSettings(db: Kysely<DB>, projectId: number): Promise<ApprovalSettings> {
  const row = await db.selectFrom('project_approval_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst();
  if (!row) return DEFAULT_APPROVAL_SETTINGS;
  const { project_id: _, ...settings } = row;
  return settings;
}

export type Approver = Pick<UserRow, 'id' | 'username' | 'name' | 'state'>;

/** The users who approved the merge request, in the order they approved. */
export function findApprovers(db: Kysely<DB>, mergeRequestId: number): Promise<Approver[]> {
  return db
    .selectFrom('merge_request_approvals')
    .innerJoin('users', 'users.id', 'merge_request_approvals.user_id')
    .select(['users.id', 'users.username', 'users.name', 'users.state'])
    .where('merge_request_approvals.merge_request_id', '=', mergeRequestId)
    .orderBy('merge_request_approvals.id')
    .execute();
}
