// The issue entity (14.x Entities::Issue), from an issue row and what loadIssueRelations found.
import type { IssueRow } from '../../db/schema.ts';
import type { IssuableMilestone, IssuableUser } from '../../domain/issuables.ts';
import { apiUrl, groupWebUrl, projectWebUrl } from '../../domain/urls.ts';
import type { LabelRow } from '../../domain/labels.ts';
import { presentMilestone } from '../milestones/milestones.presenter.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { IssueRelations } from './issues.finder.ts';

export interface IssueView {
  baseUrl: string;
  /**
   * What the request names, which `references.relative` is relative to: a project (its issues are
   * `#iid`) or a group (the issues of its own projects are `<project path>#iid`); others are full.
   */
  fromProjectId: number | null;
  fromGroupId?: number;
  withLabelsDetails: boolean;
  /** Single issues show `subscribed`; lists do not. */
  withSubscribed: boolean;
}

/** A user the page names; null once the account is gone. */
function user(row: IssuableUser | undefined, baseUrl: string) {
  return row ? userBasicFields(row, baseUrl) : null;
}

/** The text colour the platform picks for a label's background (LabelsHelper.text_color_for_bg). */
export function labelTextColor(color: string): string {
  const hex = color.replace('#', '');
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join('') : hex;
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  return r + g + b > 500 ? '#333333' : '#FFFFFF';
}

export function presentLabel(label: LabelRow) {
  return { id: label.id, name: label.title, color: label.color, description: label.description, description_html: label.description ?? '', text_color: labelTextColor(label.color) };
}

export function milestoneOwnerUrl(m: IssuableMilestone, baseUrl: string, relations: Pick<IssueRelations, 'projects'>): string {
  const project = m.project_id !== null ? relations.projects.get(m.project_id) : undefined;
  return project ? projectWebUrl(baseUrl, project) : groupWebUrl(baseUrl, m.group_full_path ?? '');
}

/** Markdown task list items of a description: `- [ ]` open, `- [x]` done. */
export function tasks(description: string | null): { count: number; completed: number } {
  let count = 0;
  let completed = 0;
  for (const match of (description ?? '').matchAll(/^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[([ xX])\][ \t]/gm)) {
    count += 1;
    if (match[1] !== ' ') completed += 1;
  }
  return { count, completed };
}

/** The fields every form of an issue shows (Entities::IssueBasic, as a milestone's issue lists show them). */
export function presentIssueBasic(issue: IssueRow, relations: IssueRelations, view: IssueView, today: string) {
  const project = relations.projects.get(issue.project_id)!;
  const labels = relations.labels.get(issue.id) ?? [];
  const assignees = (relations.assignees.get(issue.id) ?? []).flatMap((id) => user(relations.users.get(id), view.baseUrl) ?? []);
  const milestone = issue.milestone_id !== null ? relations.milestones.get(issue.milestone_id) : undefined;
  const { count, completed } = tasks(issue.description);
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state as 'opened' | 'closed',
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    closed_at: issue.closed_at,
    closed_by: issue.closed_by_id !== null ? user(relations.users.get(issue.closed_by_id), view.baseUrl) : null,
    labels: view.withLabelsDetails ? labels.map(presentLabel) : labels.map((l) => l.title).sort(),
    milestone: milestone ? presentMilestone(milestone, milestoneOwnerUrl(milestone, view.baseUrl, relations), today) : null,
    assignees,
    author: user(issue.author_id !== null ? relations.users.get(issue.author_id) : undefined, view.baseUrl),
    type: issue.issue_type.toUpperCase() as 'ISSUE' | 'INCIDENT' | 'TEST_CASE',
    assignee: assignees[0] ?? null,
    user_notes_count: relations.userNotes.get(issue.id) ?? 0,
    merge_requests_count: relations.closingMergeRequests.get(issue.id) ?? 0,
    // Award emoji are not kept: nobody can have voted.
    upvotes: 0,
    downvotes: 0,
    due_date: issue.due_date,
    confidential: Boolean(issue.confidential),
    discussion_locked: issue.discussion_locked === null ? null : Boolean(issue.discussion_locked),
    issue_type: issue.issue_type as 'issue' | 'incident' | 'test_case',
    web_url: `${projectWebUrl(view.baseUrl, project)}/-/issues/${issue.iid}`,
    time_stats: { time_estimate: issue.time_estimate, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null },
    task_completion_status: { count, completed_count: completed },
    weight: issue.weight,
    // Issue links are not kept: nothing blocks.
    blocking_issues_count: 0,
  };
}

export function presentIssue(issue: IssueRow, relations: IssueRelations, view: IssueView, today: string) {
  const project = relations.projects.get(issue.project_id)!;
  const { count, completed } = tasks(issue.description);
  const api = (path: string) => apiUrl(view.baseUrl, path);
  const inGroup = project.namespace_type === 'Group';
  return {
    ...presentIssueBasic(issue, relations, view, today),
    has_tasks: count > 0,
    ...(count > 0 ? { task_status: `${completed} of ${count} ${count === 1 ? 'task' : 'tasks'} completed` } : {}),
    _links: {
      self: api(`/projects/${issue.project_id}/issues/${issue.iid}`),
      notes: api(`/projects/${issue.project_id}/issues/${issue.iid}/notes`),
      award_emoji: api(`/projects/${issue.project_id}/issues/${issue.iid}/award_emoji`),
      project: api(`/projects/${issue.project_id}`),
    },
    references: {
      short: `#${issue.iid}`,
      relative: view.fromProjectId === issue.project_id ? `#${issue.iid}` : `${view.fromGroupId === project.namespace_id ? project.path : project.full_path}#${issue.iid}`,
      full: `${project.full_path}#${issue.iid}`,
    },
    severity: 'UNKNOWN',
    ...(view.withSubscribed ? { subscribed: relations.subscribed.has(issue.id) } : {}),
    moved_to_id: issue.moved_to_id,
    service_desk_reply_to: null,
    ...(inGroup ? { epic_iid: null, epic: null, iteration: null } : {}),
    health_status: null,
  };
}

