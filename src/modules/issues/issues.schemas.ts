// Issues (14.x lib/api/issues.rb; entities IssuableEntity, IssueBasic and Issue with the
// licensed-edition fields: weight and blocking_issues_count, and the epic and iteration of a
// group's project, which Quarry has none of).
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { DateOnly, Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { MilestoneEntity } from '../milestones/milestones.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const ISSUE_TYPES = ['issue', 'incident', 'test_case'] as const;
export const ISSUE_ORDERS = ['created_at', 'updated_at', 'priority', 'due_date', 'relative_position', 'label_priority', 'milestone_due', 'popularity', 'weight', 'title'] as const;

const UserBasic = Entity(userBasicFields);

/** `with_labels_details=true`: labels as objects (Entities::LabelBasic). */
export const LabelDetailsEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Type.String(),
  text_color: Type.String(),
});

/** Entities::IssuableTimeStats. */
export const TimeStatsEntity = Entity({
  time_estimate: Type.Integer(),
  total_time_spent: Type.Integer(),
  human_time_estimate: Nullable(Type.String()),
  human_total_time_spent: Nullable(Type.String()),
});

/** What an issue shows in every form (IssuableEntity, IssueBasic with the licensed-edition fields). */
const issueBasicFields = {
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Literals(['opened', 'closed'] as const),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Timestamp),
  closed_by: Nullable(UserBasic),
  labels: Type.Union([Type.Array(Type.String()), Type.Array(LabelDetailsEntity)]),
  milestone: Nullable(MilestoneEntity),
  assignees: Type.Array(UserBasic),
  /** Null once its author's account was deleted for good (hard_delete); otherwise the ghost user holds it. */
  author: Nullable(UserBasic),
  type: Literals(['ISSUE', 'INCIDENT', 'TEST_CASE'] as const),
  assignee: Nullable(UserBasic),
  user_notes_count: Type.Integer(),
  merge_requests_count: Type.Integer(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  due_date: Nullable(DateOnly),
  confidential: Type.Boolean(),
  discussion_locked: Nullable(Type.Boolean()),
  issue_type: Literals(ISSUE_TYPES),
  web_url: Type.String(),
  time_stats: TimeStatsEntity,
  task_completion_status: Entity({ count: Type.Integer(), completed_count: Type.Integer() }),
  weight: Nullable(Type.Integer()),
  blocking_issues_count: Type.Integer(),
};

/** The form of a milestone's issue lists (Entities::IssueBasic). */
export const IssueBasicEntity = Entity(issueBasicFields);

export const IssueEntity = Entity({
  ...issueBasicFields,
  has_tasks: Type.Boolean(),
  task_status: Type.Optional(Type.String()),
  _links: Entity({ self: Type.String(), notes: Type.String(), award_emoji: Type.String(), project: Type.String() }),
  references: Entity({ short: Type.String(), relative: Type.String(), full: Type.String() }),
  severity: Type.String(),
  /** Single issues only: lists leave it out (it costs a query per issue). */
  subscribed: Type.Optional(Type.Boolean()),
  moved_to_id: Nullable(Type.Integer()),
  service_desk_reply_to: Nullable(Type.String()),
  /** A project in a group shows its (absent) epic and iteration. */
  epic_iid: Type.Optional(Type.Null()),
  epic: Type.Optional(Type.Null()),
  iteration: Type.Optional(Type.Null()),
  health_status: Nullable(Type.String()),
});

export const ProjectParams = Params({ id: IdOrPath });
export const IssueParams = Params({ id: IdOrPath, issue_iid: Type.Integer() });
export const IssueIdParams = Params({ id: Type.Integer() });

/** A user id, or `None` / `Any` (case-insensitive). */
const IdNoneAny = Type.Union([Type.Integer(), Type.String({ pattern: '^(?i:none|any)$' })]);

const negatableFilters = {
  labels: Type.Optional(CommaList(Type.String())),
  milestone: Type.Optional(Type.String()),
  iids: Type.Optional(CommaList(Type.Integer())),
  search: Type.Optional(Type.String()),
  in: Type.Optional(Type.String()),
  author_id: Type.Optional(Type.Integer()),
  author_username: Type.Optional(Type.String()),
  assignee_id: Type.Optional(IdNoneAny),
  assignee_username: Type.Optional(CommaList(Type.String())),
  weight: Type.Optional(IdNoneAny),
};
const negatableRules = { 'x-mutually-exclusive': [['author_id', 'author_username'], ['assignee_id', 'assignee_username']] };

export const NegatedFilters = Params(negatableFilters, negatableRules);

export const ListIssuesQuery = Params(
  {
    ...PageParams,
    ...negatableFilters,
    with_labels_details: Type.Optional(Bool({ default: false })),
    state: Type.Optional(OneOf(['opened', 'closed', 'all'] as const, { default: 'all' })),
    order_by: Type.Optional(OneOf(ISSUE_ORDERS, { default: 'created_at' })),
    sort: Type.Optional(OneOf(['asc', 'desc'] as const, { default: 'desc' })),
    due_date: Type.Optional(OneOf(['0', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks', ''] as const)),
    created_after: Type.Optional(Type.String({ format: 'date-time' })),
    created_before: Type.Optional(Type.String({ format: 'date-time' })),
    updated_after: Type.Optional(Type.String({ format: 'date-time' })),
    updated_before: Type.Optional(Type.String({ format: 'date-time' })),
    not: Type.Optional(NegatedFilters),
    scope: Type.Optional(OneOf(['created-by-me', 'assigned-to-me', 'created_by_me', 'assigned_to_me', 'all'] as const)),
    my_reaction_emoji: Type.Optional(Type.String()),
    confidential: Type.Optional(Bool()),
    issue_type: Type.Optional(OneOf(ISSUE_TYPES)),
    non_archived: Type.Optional(Bool()),
  },
  negatableRules,
);

const issueFields = {
  description: Type.Optional(Type.String()),
  assignee_ids: Type.Optional(CommaList(Type.Integer())),
  assignee_id: Type.Optional(Type.Integer()),
  milestone_id: Type.Optional(Nullable(Type.Integer())),
  labels: Type.Optional(CommaList(Type.String())),
  add_labels: Type.Optional(CommaList(Type.String())),
  remove_labels: Type.Optional(CommaList(Type.String())),
  due_date: Type.Optional(Type.String()),
  confidential: Type.Optional(Bool()),
  discussion_locked: Type.Optional(Bool()),
  weight: Type.Optional(Nullable(Type.Integer())),
  issue_type: Type.Optional(OneOf(ISSUE_TYPES)),
};

export const CreateIssueBody = Params({
  title: Type.String(),
  created_at: Type.Optional(Type.String({ format: 'date-time' })),
  iid: Type.Optional(Type.Integer()),
  ...issueFields,
});

/** Every parameter of an update but `updated_at`: at least one must be given. */
const UPDATE_FIELDS = ['title', 'state_event', ...Object.keys(issueFields)];

export const UpdateIssueBody = Params(
  {
    title: Type.Optional(Type.String()),
    updated_at: Type.Optional(Type.String({ format: 'date-time' })),
    state_event: Type.Optional(OneOf(['reopen', 'close'] as const)),
    ...issueFields,
  },
  { 'x-at-least-one-of': [UPDATE_FIELDS] },
);
