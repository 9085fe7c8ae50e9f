// Pure rows → resource event entities (14.x Entities::ResourceLabelEvent, ResourceStateEvent,
// ResourceMilestoneEvent), with what the page's events name.
import type { ResourceLabelEventRow, ResourceMilestoneEventRow, ResourceStateEventRow } from '../../db/schema.ts';
import { singleLineHtml } from '../../domain/single-line-html.ts';
import { groupWebUrl, projectWebUrl } from '../../domain/urls.ts';
import { textColor } from '../labels/labels.presenter.ts';
import { presentMilestone } from '../milestones/milestones.presenter.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { EventRelations } from './resource-events.finder.ts';

export interface ResourceEventView {
  baseUrl: string;
  /** The project the issue or merge request belongs to: its milestones' owner. */
  project: { id: number; full_path: string };
  today: string;
}

type Owned = { id: number; issue_id: number | null; merge_request_id: number | null; user_id: number | null; created_at: string };

function common(row: Owned, relations: EventRelations, view: ResourceEventView) {
  const user = row.user_id === null ? undefined : relations.users.get(row.user_id);
  return {
    id: row.id,
    user: user ? userBasicFields(user, view.baseUrl) : null,
    created_at: row.created_at,
    resource_type: row.issue_id !== null ? ('Issue' as const) : ('MergeRequest' as const),
    resource_id: (row.issue_id ?? row.merge_request_id) as number,
  };
}

const action = (value: string) => (value === 'add' ? ('add' as const) : ('remove' as const));

export function presentLabelEvent(row: ResourceLabelEventRow, relations: EventRelations, view: ResourceEventView) {
  const label = row.label_id === null ? undefined : relations.labels.get(row.label_id);
  return {
    ...common(row, relations, view),
    label: label
      ? {
          id: label.id,
          name: label.title,
          color: label.color,
          description: label.description,
          description_html: label.description === null ? null : singleLineHtml(label.description, view.baseUrl),
          text_color: textColor(label.color),
        }
      : null,
    action: action(row.action),
  };
}

export function presentStateEvent(row: ResourceStateEventRow, relations: EventRelations, view: ResourceEventView) {
  return { ...common(row, relations, view), state: row.state };
}

export function presentMilestoneEvent(row: ResourceMilestoneEventRow, relations: EventRelations, view: ResourceEventView) {
  const milestone = row.milestone_id === null ? undefined : relations.milestones.get(row.milestone_id);
  const owner = milestone ? (milestone.project_id !== null ? projectWebUrl(view.baseUrl, view.project) : groupWebUrl(view.baseUrl, milestone.group_full_path ?? '')) : '';
  return { ...common(row, relations, view), milestone: milestone ? presentMilestone(milestone, owner, view.today) : null, action: action(row.action), state: row.state };
}
