// The approval entities, from the settings, the merge request and its approvers.
import type { Static } from '@sinclair/typebox';
import type { MergeRequestRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import { type ApprovalSettings, type Approver, approvalsLeft } from './merge-request-approvals.finder.ts';
import type { ApprovalStateEntity, MergeRequestApprovalsEntity, ProjectApprovalSettingsEntity } from './merge-request-approvals.schemas.ts';

export function presentApprovalSettings(settings: ApprovalSettings): Static<typeof ProjectApprovalSettingsEntity> {
  return { approvers: [], approver_groups: [], ...settings };
}

export interface ApprovalView {
  baseUrl: string;
  settings: ApprovalSettings;
  approvers: readonly Approver[];
  /** The caller's id, or null. */
  viewer: number | null;
  /** Whether the caller could approve it now. */
  viewerCanApprove: boolean;
}

/** How many approvals a merge request still needs: the project's required count less those given. */

export function presentMergeRequestApprovals(mr: MergeRequestRow, view: ApprovalView): Static<typeof MergeRequestApprovalsEntity> {
  const left = approvalsLeft(view.settings, view.approvers.length);
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state as Static<typeof MergeRequestApprovalsEntity>['state'],
    created_at: mr.created_at,
    updated_at: mr.updated_at,
    merge_status: mr.merge_status,
    approved: left === 0,
    approvals_required: view.settings.approvals_before_merge,
    approvals_left: left,
    require_password_to_approve: view.settings.require_password_to_approve,
    approved_by: view.approvers.map((user) => ({ user: userBasicFields(user, view.baseUrl) })),
    suggested_approvers: [],
    approvers: [],
    approver_groups: [],
    user_has_approved: view.viewer !== null && view.approvers.some((user) => user.id === view.viewer),
    user_can_approve: view.viewerCanApprove,
    approval_rules_left: [],
    has_approval_rules: false,
    merge_request_approvers_available: true,
    multiple_approval_rules_available: true,
  };
}

/** Without approval rules the state lists none, and none are overwritten. */
export function presentApprovalState(): Static<typeof ApprovalStateEntity> {
  return { approval_rules_overwritten: false, rules: [] };
}
