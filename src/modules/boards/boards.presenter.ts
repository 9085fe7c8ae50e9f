// The board and list entities, from their rows and what the route loaded for the page.
import type { Static } from '@sinclair/typebox';
import type { BoardRow } from '../../db/schema.ts';
import { singleLineHtml } from '../../domain/single-line-html.ts';
import { textColor } from '../labels/labels.presenter.ts';
import { presentMilestone } from '../milestones/milestones.presenter.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { BoardRelations, ListWithLabel } from './boards.finder.ts';
import type { BoardEntity, BoardListEntity, ProjectSimpleEntity } from './boards.schemas.ts';

export interface BoardView {
  baseUrl: string;
  today: string;
  /** The board's project in the simple form, for a project's boards. */
  project: Static<typeof ProjectSimpleEntity> | null;
  /** The board's group, for a group's boards. */
  group: { id: number; name: string; full_path: string } | null;
}

export function presentList(list: ListWithLabel, baseUrl: string): Static<typeof BoardListEntity> {
  return {
    id: list.id,
    label: {
      id: list.label_id,
      name: list.label_title,
      color: list.label_color,
      description: list.label_description,
      description_html: list.label_description === null ? null : singleLineHtml(list.label_description, baseUrl),
      text_color: textColor(list.label_color),
    },
    position: list.position,
    max_issue_count: list.max_issue_count,
    max_weight: list.max_weight,
    limit_metric: list.limit_metric,
  };
}

export function presentBoard(board: BoardRow, relations: BoardRelations, view: BoardView): Static<typeof BoardEntity> {
  const milestone = board.milestone_id === null ? undefined : relations.milestones.get(board.milestone_id);
  const assignee = board.assignee_id === null ? undefined : relations.assignees.get(board.assignee_id);
  return {
    id: board.id,
    name: board.name,
    hide_backlog_list: board.hide_backlog_list,
    hide_closed_list: board.hide_closed_list,
    project: view.project,
    lists: (relations.lists.get(board.id) ?? []).map((list) => presentList(list, view.baseUrl)),
    group: view.group === null ? null : { id: view.group.id, web_url: `${view.baseUrl}/groups/${view.group.full_path}`, name: view.group.name },
    milestone: milestone ? presentMilestone(milestone.row, `${view.baseUrl}/${milestone.ownerPath}`, view.today) : null,
    assignee: assignee ? userBasicFields(assignee, view.baseUrl) : null,
    labels: [],
    weight: board.weight,
  };
}
