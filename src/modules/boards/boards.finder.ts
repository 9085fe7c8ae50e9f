// Reads of boards: a parent's boards (a query the route pages), one board, and the label lists of
// a page of boards with their labels, in one query.
import type { Kysely } from 'kysely';
import type { BoardListRow, BoardRow, DB, MilestoneRow, UserRow } from '../../db/schema.ts';

/** Whose boards: a project's or a group's. */
export type BoardParent = { projectId: number } | { groupId: number };

export function boardsOf(db: Kysely<DB>, parent: BoardParent) {
  const query = db.selectFrom('boards').selectAll();
  return ('projectId' in parent ? query.where('project_id', '=', parent.projectId) : query.where('group_id', '=', parent.groupId)).orderBy('id');
}

export function findBoard(db: Kysely<DB>, parent: BoardParent, boardId: number): Promise<BoardRow | undefined> {
  return boardsOf(db, parent).where('id', '=', boardId).executeTakeFirst();
}

export interface ListWithLabel extends BoardListRow {
  label_title: string;
  label_color: string;
  label_description: string | null;
}

/** The label lists of the boards, each board's in position order. */
export async function findLists(db: Kysely<DB>, boardIds: readonly number[]): Promise<ListWithLabel[]> {
  if (boardIds.length === 0) return [];
  return db
    .selectFrom('board_lists')
    .innerJoin('labels', 'labels.id', 'board_lists.label_id')
    .selectAll('board_lists')
    .select(['labels.title as label_title', 'labels.color as label_color', 'labels.description as label_description'])
    .where('board_lists.board_id', 'in', boardIds)
    .orderBy('board_lists.board_id')
    .orderBy('board_lists.position')
    .execute();
}

/** The lists of one board as a query, for paging. */
export function listsOf(db: Kysely<DB>, boardId: number) {
  return db
    .selectFrom('board_lists')
    .innerJoin('labels', 'labels.id', 'board_lists.label_id')
    .selectAll('board_lists')
    .select(['labels.title as label_title', 'labels.color as label_color', 'labels.description as label_description'])
    .where('board_lists.board_id', '=', boardId)
    .orderBy('board_lists.position');
}

export function findList(db: Kysely<DB>, boardId: number, listId: number): Promise<ListWithLabel | undefined> {
  return listsOf(db, boardId).where('board_lists.id', '=', listId).executeTakeFirst();
}

export interface BoardRelations {
  lists: Map<number, ListWithLabel[]>;
  /** Scoping milestones with the web path of their project or group. */
  milestones: Map<number, { row: MilestoneRow; ownerPath: string }>;
  assignees: Map<number, Pick<UserRow, 'id' | 'username' | 'name' | 'state'>>;
}

/** What a page of boards shows beside their rows, in one query each. */
export async function loadBoardRelations(db: Kysely<DB>, boards: readonly BoardRow[]): Promise<BoardRelations> {
  const milestoneIds = [...new Set(boards.flatMap((b) => (b.milestone_id === null ? [] : [b.milestone_id])))];
  const assigneeIds = [...new Set(boards.flatMap((b) => (b.assignee_id === null ? [] : [b.assignee_id])))];
  const [lists, milestones, assignees] = await Promise.all([
    findLists(db, boards.map((b) => b.id)),
    milestoneIds.length === 0
      ? []
      : db
          .selectFrom('milestones')
          .leftJoin('projects', 'projects.id', 'milestones.project_id')
          .leftJoin('namespaces', 'namespaces.id', 'milestones.group_id')
          .selectAll('milestones')
          .select(['projects.full_path as project_path', 'namespaces.full_path as group_path'])
          .where('milestones.id', 'in', milestoneIds)
          .execute(),
    assigneeIds.length === 0 ? [] : db.selectFrom('users').select(['id', 'username', 'name', 'state']).where('id', 'in', assigneeIds).execute(),
  ]);
  const byBoard = new Map<number, ListWithLabel[]>();
  for (const list of lists) byBoard.set(list.board_id, [...(byBoard.get(list.board_id) ?? []), list]);
  return {
    lists: byBoard,
    milestones: new Map(
      milestones.map(({ project_path, group_path, ...row }) => [row.id, { row, ownerPath: project_path ?? (group_path === null ? '' : `groups/${group_path}`) }]),
    ),
    assignees: new Map(assignees.map((u) => [u.id, u])),
  };
}
