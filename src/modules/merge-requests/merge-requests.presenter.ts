// The merge request entities (14.x Entities::MergeRequestBasic and MergeRequest), from a row and
// what loadMergeRequestRelations found; the single entity's extra parts come from the route.
import type { MergeRequestRow } from '../../db/schema.ts';
import type { IssuableUser } from '../../domain/issuables.ts';
import { renderMarkdown } from '../../domain/markdown.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import { milestoneOwnerUrl, presentLabel, tasks } from '../issues/issues.presenter.ts';
import { presentMilestone } from '../milestones/milestones.presenter.ts';
import type { Pipeline, PipelineBasic } from '../pipelines/pipelines.schemas.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { MergeRequestRelations } from './merge-requests.finder.ts';

export interface MergeRequestView {
  baseUrl: string;
  /** The project the request names: its merge requests' `references.relative` is `!iid`. */
  fromProjectId: number | null;
  withLabelsDetails: boolean;
  renderHtml: boolean;
}

/** A user the page names; null once the account is gone for good. */
const user = (row: IssuableUser | undefined, baseUrl: string) => (row ? userBasicFields(row, baseUrl) : null);

/** A title that marks a draft (14.x MergeRequest.draft?: "Draft:", "[Draft]", "(Draft)", "Draft - ", and the older "WIP:" / "[WIP]"). */
const DRAFT_PREFIX = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft$|\[wip\]|wip:|wip$)/i;
export const isDraftTitle = (title: string) => DRAFT_PREFIX.test(title);

const coreOf = (mr: MergeRequestRow) => ({
  id: mr.id,
  iid: mr.iid,
  project_id: mr.project_id,
  title: mr.title,
  description: mr.description,
  state: mr.state as 'opened' | 'closed' | 'merged' | 'locked',
  created_at: mr.created_at,
  updated_at: mr.updated_at,
});

const webUrl = (mr: MergeRequestRow, project: { full_path: string }, baseUrl: string) => `${projectWebUrl(baseUrl, project)}/-/merge_requests/${mr.iid}`;

export function presentMergeRequestBasic(mr: MergeRequestRow, relations: MergeRequestRelations, view: MergeRequestView, today: string) {
  const project = relations.projects.get(mr.project_id)!;
  const labels = relations.labels.get(mr.id) ?? [];
  const people = (ids: number[] | undefined) => (ids ?? []).flatMap((id) => user(relations.users.get(id), view.baseUrl) ?? []);
  const assignees = people(relations.assignees.get(mr.id));
  const milestone = mr.milestone_id !== null ? relations.milestones.get(mr.milestone_id) : undefined;
  const { count, completed } = tasks(mr.description);
  const merger = mr.merged_by_id !== null ? user(relations.users.get(mr.merged_by_id), view.baseUrl) : null;
  const relative = view.fromProjectId === mr.project_id ? `!${mr.iid}` : `${project.full_path}!${mr.iid}`;
  const draft = Boolean(mr.draft);
  return {
    ...coreOf(mr),
    merged_by: merger,
    // Whoever merged it, or set it to merge when its pipeline succeeds.
    merge_user: merger ?? (mr.merge_user_id !== null ? user(relations.users.get(mr.merge_user_id), view.baseUrl) : null),
    merged_at: mr.merged_at,
    closed_by: mr.closed_by_id !== null ? user(relations.users.get(mr.closed_by_id), view.baseUrl) : null,
    closed_at: mr.closed_at,
    ...(view.renderHtml ? { title_html: renderMarkdown(mr.title), description_html: renderMarkdown(mr.description) } : {}),
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: relations.userNotes.get(mr.id) ?? 0,
    // Award emoji are not kept: nobody can have voted.
    upvotes: 0,
    downvotes: 0,
    author: user(mr.author_id !== null ? relations.users.get(mr.author_id) : undefined, view.baseUrl),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: people(relations.reviewers.get(mr.id)),
    source_project_id: mr.project_id,
    target_project_id: mr.project_id,
    labels: view.withLabelsDetails ? labels.map(presentLabel) : labels.map((l) => l.title).sort(),
    draft,
    work_in_progress: draft,
    milestone: milestone ? presentMilestone(milestone, milestoneOwnerUrl(milestone, view.baseUrl, relations), today) : null,
    merge_when_pipeline_succeeds: Boolean(mr.merge_when_pipeline_succeeds),
    merge_status: mr.merge_status as 'unchecked' | 'checking' | 'can_be_merged' | 'cannot_be_merged' | 'cannot_be_merged_recheck',
    sha: mr.sha,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: mr.squash_commit_sha,
    discussion_locked: mr.discussion_locked === null ? null : Boolean(mr.discussion_locked),
    // The merger's choice once merged; before, the author's.
    should_remove_source_branch: mr.should_remove_source_branch === null ? null : Boolean(mr.should_remove_source_branch),
    force_remove_source_branch: mr.force_remove_source_branch === null ? null : Boolean(mr.force_remove_source_branch),
    reference: relative,
    references: { short: `!${mr.iid}`, relative, full: `${project.full_path}!${mr.iid}` },
    web_url: webUrl(mr, project, view.baseUrl),
    time_stats: { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    squash: Boolean(mr.squash),
    task_completion_status: { count, completed_count: completed },
    has_conflicts: mr.merge_status === 'cannot_be_merged',
    // No discussion is resolvable yet: nothing blocks.
    blocking_discussions_resolved: true,
    approvals_before_merge: null,
  };
}

export interface SingleParts {
  subscribed: boolean;
  changesCount: string | null;
  /** Present when the caller may see the project's CI (`pipeline` and the build times). */
  ci: { pipeline: PipelineBasic | null; startedAt: string | null; finishedAt: string | null } | null;
  /** Present when the caller may read pipelines. */
  headPipeline: Pipeline | null | undefined;
  divergedCommitsCount?: number;
  rebaseInProgress?: boolean;
  firstContribution: boolean;
  canMerge: boolean;
}

const diffRefsOf = (mr: MergeRequestRow) => (mr.head_sha === null && mr.start_sha === null ? null : { base_sha: mr.base_sha, head_sha: mr.head_sha, start_sha: mr.start_sha });

export function presentMergeRequest(mr: MergeRequestRow, relations: MergeRequestRelations, view: MergeRequestView, today: string, parts: SingleParts) {
  return {
    ...presentMergeRequestBasic(mr, relations, view, today),
    subscribed: parts.subscribed,
    changes_count: parts.changesCount,
    ...(parts.ci
      ? { latest_build_started_at: parts.ci.startedAt, latest_build_finished_at: parts.ci.finishedAt, first_deployed_to_production_at: null, pipeline: parts.ci.pipeline }
      : {}),
    ...(parts.headPipeline !== undefined ? { head_pipeline: parts.headPipeline } : {}),
    diff_refs: diffRefsOf(mr),
    merge_error: mr.merge_error,
    ...(parts.divergedCommitsCount !== undefined ? { diverged_commits_count: parts.divergedCommitsCount } : {}),
    ...(parts.rebaseInProgress !== undefined ? { rebase_in_progress: parts.rebaseInProgress } : {}),
    first_contribution: parts.firstContribution,
    user: { can_merge: parts.canMerge },
  };
}

/**
 * A to-do's merge request (MergeRequestTodoTargetEntity): the platform presents it without the
 * caller, so nobody is subscribed and nobody may merge.
 */
export function presentMergeRequestTodoTarget(mr: MergeRequestRow, relations: MergeRequestRelations, view: MergeRequestView, today: string) {
  return { ...presentMergeRequestBasic(mr, relations, view, today), subscribed: false, diff_refs: diffRefsOf(mr), merge_error: mr.merge_error, user: { can_merge: false } };
}

/** `view=simple`: what a list shows of each merge request when asked for little. */
export function presentMergeRequestSimple(mr: MergeRequestRow, relations: Pick<MergeRequestRelations, 'projects'>, baseUrl: string) {
  return {
    ...coreOf(mr),
    web_url: webUrl(mr, relations.projects.get(mr.project_id)!, baseUrl),
  };
}
