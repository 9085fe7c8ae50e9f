// Merge request approvals as the platform's licensed edition shows them (14.x): a project's
// approval settings (EE::API::Entities::ApprovalSettings), a merge request's approval state
// (EE::API::Entities::ApprovalState, without approval rules: any Developer may approve, and the
// project's approvals_before_merge are required) and its rules (MergeRequestApprovalState).
import { Type } from '@sinclair/typebox';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';

const UserBasic = Entity(userBasicFields);

export const ProjectApprovalSettingsEntity = Entity({
  /** Approvers and approver groups named outside rules: none here (they are rules' now). */
  approvers: Type.Array(Entity({ user: UserBasic })),
  approver_groups: Type.Array(Entity({ group: Entity({ id: Type.Integer(), name: Type.String() }) })),
  approvals_before_merge: Type.Integer(),
  reset_approvals_on_push: Type.Boolean(),
  disable_overriding_approvers_per_merge_request: Type.Boolean(),
  merge_requests_author_approval: Type.Boolean(),
  merge_requests_disable_committers_approval: Type.Boolean(),
  require_password_to_approve: Type.Boolean(),
});

export const SETTING_NAMES = [
  'approvals_before_merge',
  'reset_approvals_on_push',
  'disable_overriding_approvers_per_merge_request',
  'merge_requests_author_approval',
  'merge_requests_disable_committers_approval',
  'require_password_to_approve',
] as const;

export const UpdateApprovalSettingsBody = Params(
  {
    approvals_before_merge: Type.Optional(Type.Integer()),
    reset_approvals_on_push: Type.Optional(Bool()),
    disable_overriding_approvers_per_merge_request: Type.Optional(Bool()),
    merge_requests_author_approval: Type.Optional(Bool()),
    merge_requests_disable_committers_approval: Type.Optional(Bool()),
    require_password_to_approve: Type.Optional(Bool()),
  },
  { 'x-at-least-one-of': [[...SETTING_NAMES]] },
);

export const MergeRequestApprovalsEntity = Entity({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Literals(['opened', 'closed', 'locked', 'merged']),
  created_at: Timestamp,
  updated_at: Timestamp,
  merge_status: Type.String(),
  approved: Type.Boolean(),
  approvals_required: Type.Integer(),
  approvals_left: Type.Integer(),
  require_password_to_approve: Type.Boolean(),
  approved_by: Type.Array(Entity({ user: UserBasic })),
  suggested_approvers: Type.Array(UserBasic),
  approvers: Type.Array(Entity({ user: UserBasic })),
  approver_groups: Type.Array(Entity({ group: Entity({ id: Type.Integer(), name: Type.String() }) })),
  user_has_approved: Type.Boolean(),
  user_can_approve: Type.Boolean(),
  approval_rules_left: Type.Array(Entity({ id: Type.Integer(), name: Type.String(), rule_type: Type.String() })),
  has_approval_rules: Type.Boolean(),
  merge_request_approvers_available: Type.Boolean(),
  multiple_approval_rules_available: Type.Boolean(),
});

export const ApprovalStateEntity = Entity({
  approval_rules_overwritten: Type.Boolean(),
  rules: Type.Array(Entity({ id: Type.Integer(), name: Type.String(), rule_type: Type.String(), approvals_required: Type.Integer(), approved: Type.Boolean() })),
});

export const ProjectParams = Params({ id: IdOrPath });
export const MergeRequestParams = Params({ id: IdOrPath, merge_request_iid: Type.Integer() });

export const ApproveBody = Params({
  /** When given, the source branch's head the approver saw. */
  sha: Type.Optional(Type.String()),
  approval_password: Type.Optional(Type.String()),
});
