// Merge requests (14.x lib/api/merge_requests.rb; entities MergeRequestBasic, MergeRequest and
// MergeRequestChanges with the licensed-edition approvals_before_merge). Source and target are
// branches of one project: the fork-only fields (allow_collaboration) never show.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { LabelDetailsEntity, TimeStatsEntity } from '../issues/issues.schemas.ts';
import { MilestoneEntity } from '../milestones/milestones.schemas.ts';
import { PipelineBasicEntity, PipelineEntity } from '../pipelines/pipelines.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const MR_STATES = ['opened', 'closed', 'merged', 'locked'] as const;
export const MERGE_STATUSES = ['unchecked', 'checking', 'can_be_merged', 'cannot_be_merged', 'cannot_be_merged_recheck'] as const;

const UserBasic = Entity(userBasicFields);

/** What every merge request entity starts with (IssuableEntity). */
const coreFields = {
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Literals(MR_STATES),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const basicFields = {
  ...coreFields,
  merged_by: Nullable(UserBasic),
  /** 14.7 added merge_user, the same as merged_by for merges made at once. */
  merge_user: Nullable(UserBasic),
  merged_at: Nullable(Timestamp),
  closed_by: Nullable(UserBasic),
  closed_at: Nullable(Timestamp),
  /** render_html=true only. */
  title_html: Type.Optional(Type.String()),
  description_html: Type.Optional(Type.String()),
  target_branch: Type.String(),
  source_branch: Type.String(),
  user_notes_count: Type.Integer(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  /** Null once its author's account was deleted for good (hard_delete); otherwise the ghost user holds it. */
  author: Nullable(UserBasic),
  assignees: Type.Array(UserBasic),
  assignee: Nullable(UserBasic),
  reviewers: Type.Array(UserBasic),
  source_project_id: Type.Integer(),
  target_project_id: Type.Integer(),
  labels: Type.Union([Type.Array(Type.String()), Type.Array(LabelDetailsEntity)]),
  draft: Type.Boolean(),
  work_in_progress: Type.Boolean(),
  milestone: Nullable(MilestoneEntity),
  merge_when_pipeline_succeeds: Type.Boolean(),
  merge_status: Literals(MERGE_STATUSES),
  sha: Nullable(Type.String()),
  merge_commit_sha: Nullable(Type.String()),
  squash_commit_sha: Nullable(Type.String()),
  discussion_locked: Nullable(Type.Boolean()),
  should_remove_source_branch: Nullable(Type.Boolean()),
  force_remove_source_branch: Nullable(Type.Boolean()),
  reference: Type.String(),
  references: Entity({ short: Type.String(), relative: Type.String(), full: Type.String() }),
  web_url: Type.String(),
  time_stats: TimeStatsEntity,
  squash: Type.Boolean(),
  task_completion_status: Entity({ count: Type.Integer(), completed_count: Type.Integer() }),
  has_conflicts: Type.Boolean(),
  blocking_discussions_resolved: Type.Boolean(),
  approvals_before_merge: Nullable(Type.Integer()),
};

export const MergeRequestBasicEntity = Entity(basicFields);

const DiffRefsEntity = Entity({ base_sha: Nullable(Type.String()), head_sha: Nullable(Type.String()), start_sha: Nullable(Type.String()) });

/**
 * A to-do's merge request: Entities::MergeRequest as Entities::Todo presents it, with neither the
 * caller nor the project, so without the pipelines and with nothing the caller may do; and
 * without changes_count, which would read the repository for every to-do of a page.
 */
export const MergeRequestTodoTargetEntity = Entity({
  ...basicFields,
  subscribed: Type.Boolean(),
  diff_refs: Nullable(DiffRefsEntity),
  merge_error: Nullable(Type.String()),
  user: Entity({ can_merge: Type.Boolean() }),
});

const singleFields = {
  ...basicFields,
  subscribed: Type.Boolean(),
  /** A string: "1000+" when the diff overflows the platform's limits. */
  changes_count: Nullable(Type.String()),
  /** Shown when the project's CI is open to the caller. */
  latest_build_started_at: Type.Optional(Nullable(Timestamp)),
  latest_build_finished_at: Type.Optional(Nullable(Timestamp)),
  first_deployed_to_production_at: Type.Optional(Nullable(Timestamp)),
  pipeline: Type.Optional(Nullable(PipelineBasicEntity)),
  /** Shown to those who may read the project's pipelines. */
  head_pipeline: Type.Optional(Nullable(PipelineEntity)),
  diff_refs: Nullable(DiffRefsEntity),
  merge_error: Nullable(Type.String()),
  diverged_commits_count: Type.Optional(Type.Integer()),
  /** include_rebase_in_progress=true only: a rebase job is queued or running. */
  rebase_in_progress: Type.Optional(Type.Boolean()),
  first_contribution: Type.Boolean(),
  user: Entity({ can_merge: Type.Boolean() }),
};

export const MergeRequestEntity = Entity(singleFields);

/** `view=simple` (Entities::MergeRequestSimple). */
export const MergeRequestSimpleEntity = Entity({ ...coreFields, web_url: Type.String() });

export const DiffEntity = Entity({
  old_path: Type.String(),
  new_path: Type.String(),
  a_mode: Type.String(),
  b_mode: Type.String(),
  new_file: Type.Boolean(),
  renamed_file: Type.Boolean(),
  deleted_file: Type.Boolean(),
  diff: Type.String(),
});

export const MergeRequestChangesEntity = Entity({ ...singleFields, changes: Type.Array(DiffEntity), overflow: Type.Boolean() });

export const ProjectParams = Params({ id: IdOrPath });
export const MergeRequestParams = Params({ id: IdOrPath, merge_request_iid: Type.Integer() });

/** A user id, or `None` / `Any` (case-insensitive). */
const IdNoneAny = Type.Union([Type.Integer(), Type.String({ pattern: '^(?i:none|any)$' })]);

const negatableFilters = {
  labels: Type.Optional(CommaList(Type.String())),
  milestone: Type.Optional(Type.String()),
  author_id: Type.Optional(Type.Integer()),
  author_username: Type.Optional(Type.String()),
  assignee_id: Type.Optional(IdNoneAny),
  reviewer_id: Type.Optional(IdNoneAny),
  reviewer_username: Type.Optional(Type.String()),
  my_reaction_emoji: Type.Optional(Type.String()),
};
const negatableRules = { 'x-mutually-exclusive': [['author_id', 'author_username'], ['reviewer_id', 'reviewer_username']] };

export const ORDERS = ['created_at', 'updated_at', 'title'] as const;

export const ListMergeRequestsQuery = Params(
  {
    ...PageParams,
    ...negatableFilters,
    state: Type.Optional(OneOf(['opened', 'closed', 'locked', 'merged', 'all'] as const, { default: 'all' })),
    order_by: Type.Optional(OneOf(ORDERS, { default: 'created_at' })),
    sort: Type.Optional(OneOf(['asc', 'desc'] as const, { default: 'desc' })),
    with_labels_details: Type.Optional(Bool({ default: false })),
    with_merge_status_recheck: Type.Optional(Bool({ default: false })),
    created_after: Type.Optional(Type.String({ format: 'date-time' })),
    created_before: Type.Optional(Type.String({ format: 'date-time' })),
    updated_after: Type.Optional(Type.String({ format: 'date-time' })),
    updated_before: Type.Optional(Type.String({ format: 'date-time' })),
    scope: Type.Optional(OneOf(['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const)),
    source_branch: Type.Optional(Type.String()),
    target_branch: Type.Optional(Type.String()),
    search: Type.Optional(Type.String()),
    in: Type.Optional(Type.String()),
    wip: Type.Optional(OneOf(['yes', 'no'] as const)),
    not: Type.Optional(Params(negatableFilters, negatableRules)),
    iids: Type.Optional(CommaList(Type.Integer())),
    non_archived: Type.Optional(Bool()),
    view: Type.Optional(OneOf(['simple'] as const)),
  },
  negatableRules,
);

const editableFields = {
  description: Type.Optional(Type.String()),
  assignee_id: Type.Optional(Type.Integer()),
  assignee_ids: Type.Optional(CommaList(Type.Integer())),
  reviewer_ids: Type.Optional(CommaList(Type.Integer())),
  milestone_id: Type.Optional(Nullable(Type.Integer())),
  labels: Type.Optional(CommaList(Type.String())),
  remove_source_branch: Type.Optional(Bool()),
  squash: Type.Optional(Bool()),
  allow_collaboration: Type.Optional(Bool()),
  allow_maintainer_to_push: Type.Optional(Bool()),
  approvals_before_merge: Type.Optional(Type.Integer()),
};

export const CreateMergeRequestBody = Params({
  title: Type.String(),
  source_branch: Type.String(),
  target_branch: Type.String(),
  target_project_id: Type.Optional(Type.Integer()),
  ...editableFields,
});

const UPDATE_FIELDS = ['assignee_id', 'assignee_ids', 'reviewer_ids', 'description', 'labels', 'add_labels', 'remove_labels', 'milestone_id', 'remove_source_branch', 'state_event', 'target_branch', 'title', 'discussion_locked', 'squash'];

export const UpdateMergeRequestBody = Params(
  {
    title: Type.Optional(Type.String({ 'x-blank': false })),
    target_branch: Type.Optional(Type.String({ 'x-blank': false })),
    state_event: Type.Optional(OneOf(['close', 'reopen'] as const)),
    discussion_locked: Type.Optional(Bool()),
    add_labels: Type.Optional(CommaList(Type.String())),
    remove_labels: Type.Optional(CommaList(Type.String())),
    ...editableFields,
  },
  { 'x-at-least-one-of': [UPDATE_FIELDS] },
);

export const SingleQuery = Params({
  render_html: Type.Optional(Bool()),
  include_diverged_commits_count: Type.Optional(Bool()),
  include_rebase_in_progress: Type.Optional(Bool()),
});

export const ChangesQuery = Params({ access_raw_diffs: Type.Optional(Bool({ default: false })) });

export const MergeBody = Params({
  merge_commit_message: Type.Optional(Type.String()),
  squash_commit_message: Type.Optional(Type.String()),
  squash: Type.Optional(Bool()),
  should_remove_source_branch: Type.Optional(Bool()),
  merge_when_pipeline_succeeds: Type.Optional(Bool()),
  sha: Type.Optional(Type.String()),
});

export const RebaseBody = Params({ skip_ci: Type.Optional(Bool()) });

/** PUT …/rebase's answer. */
export const RebaseEntity = Entity({ rebase_in_progress: Type.Boolean() });

export const CommitsQuery = Params({ ...PageParams });

/** POST …/cancel_merge_when_pipeline_succeeds's answer: 14.x sends the service's result as it is. */
export const CancelAutoMergeEntity = Type.Union([
  Entity({ status: Type.Literal('success') }),
  Entity({ status: Type.Literal('error'), message: Type.String(), http_status: Type.Integer() }),
]);

export const PipelinesQuery = Params({ ...PageParams });
