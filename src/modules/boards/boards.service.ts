// Writes of boards (Boards::CreateService, UpdateService, DestroyService, 14.x) and of their label
// lists (Boards::Lists::CreateService, MoveService, DestroyService): lists keep positions 0…n-1,
// a move or a removal shifting the lists between, all in one transaction.
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { apiError, badRequest, invalidFields, messageError } from '../../core/errors.ts';
import type { BoardListRow, BoardRow, DB } from '../../db/schema.ts';
import type { BoardParent } from './boards.finder.ts';
import type { UpdateBoardBody } from './boards.schemas.ts';

/** The groups whose labels and milestones a board may use: its group or its project's, and their ancestors. */
export interface BoardScope {
  parent: BoardParent;
  groupIds: readonly number[];
}

export async function createBoard(ctx: ServiceContext, parent: BoardParent, name: string): Promise<BoardRow> {
  if (name.trim() === '') throw invalidFields({ name: ["can't be blank"] });
  const now = ctx.now().toISOString();
  return withTransaction(ctx, (tx) =>
    tx.db
      .insertInto('boards')
      .values({ project_id: 'projectId' in parent ? parent.projectId : null, group_id: 'groupId' in parent ? parent.groupId : null, name, milestone_id: null, assignee_id: null, weight: null, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
}

/** A milestone of the board's project or group (or an ancestor group); the platform drops any other. */
async function usableMilestoneId(db: Kysely<DB>, scope: BoardScope, id: number): Promise<number | null> {
  const row = await db
    .selectFrom('milestones')
    .select('id')
    .where('id', '=', id)
    .where((eb) => {
      const owners = scope.groupIds.length > 0 ? [eb('group_id', 'in', [...scope.groupIds])] : [];
      if ('projectId' in scope.parent) owners.push(eb('project_id', '=', scope.parent.projectId));
      return eb.or(owners);
    })
    .executeTakeFirst();
  return row?.id ?? null;
}

export async function updateBoard(ctx: ServiceContext, scope: BoardScope, board: BoardRow, body: UpdateBoardBody): Promise<BoardRow> {
  if (body.name !== undefined && body.name.trim() === '') throw badRequest('Failed to save board {:name=>["can\'t be blank"]}');
  return withTransaction(ctx, async (tx) => {
    const changes: Partial<BoardRow> = { updated_at: tx.now().toISOString() };
    if (body.name !== undefined) changes.name = body.name;
    if (body.hide_backlog_list !== undefined) changes.hide_backlog_list = body.hide_backlog_list;
    if (body.hide_closed_list !== undefined) changes.hide_closed_list = body.hide_closed_list;
    if (body.weight !== undefined) changes.weight = body.weight;
    if (body.milestone_id !== undefined) changes.milestone_id = await usableMilestoneId(tx.db, scope, body.milestone_id);
    if (body.assignee_id !== undefined) {
      const user = await tx.db.selectFrom('users').select('id').where('id', '=', body.assignee_id).executeTakeFirst();
      changes.assignee_id = user?.id ?? null;
    }
    return tx.db.updateTable('boards').set(changes).where('id', '=', board.id).returningAll().executeTakeFirstOrThrow();
  });
}

/** Deletes the board, unless it is its parent's last (which the platform keeps, answering as if deleted). */
export async function deleteBoard(ctx: ServiceContext, parent: BoardParent, board: BoardRow): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const column = 'projectId' in parent ? 'project_id' : 'group_id';
    const owner = 'projectId' in parent ? parent.projectId : parent.groupId;
    const { count } = await tx.db.selectFrom('boards').select((eb) => eb.fn.countAll<number>().as('count')).where(column, '=', owner).executeTakeFirstOrThrow();
    if (Number(count) <= 1) return;
    await tx.db.deleteFrom('boards').where('id', '=', board.id).execute();
  });
}

export const LABEL_NOT_FOUND = () => messageError(400, 'Label not found!');

/** Whether the label is one the board may list: its project's or group's, or an ancestor group's. */
export async function labelAvailable(db: Kysely<DB>, scope: BoardScope, labelId: number): Promise<boolean> {
  const row = await db
    .selectFrom('labels')
    .select('id')
    .where('id', '=', labelId)
    .where((eb) => {
      const owners = scope.groupIds.length > 0 ? [eb('group_id', 'in', [...scope.groupIds])] : [];
      if ('projectId' in scope.parent) owners.push(eb('project_id', '=', scope.parent.projectId));
      return eb.or(owners);
    })
    .executeTakeFirst();
  return row !== undefined;
}

/** A label list at the end of the board; 400 when the board lists the label already. */
export async function createList(ctx: ServiceContext, board: BoardRow, labelId: number): Promise<BoardListRow> {
  const now = ctx.now().toISOString();
  return withTransaction(ctx, async (tx) => {
    const taken = await tx.db.selectFrom('board_lists').select('id').where('board_id', '=', board.id).where('label_id', '=', labelId).executeTakeFirst();
    if (taken) throw invalidFields({ label: ['has already been taken'] });
    const { last } = await tx.db.selectFrom('board_lists').select((eb) => eb.fn.max<number | null>('position').as('last')).where('board_id', '=', board.id).executeTakeFirstOrThrow();
    const position = last === null ? 0 : Number(last) + 1;
    return tx.db.insertInto('board_lists').values({ board_id: board.id, label_id: labelId, position, limit_metric: null, created_at: now, updated_at: now }).returningAll().executeTakeFirstOrThrow();
  });
}

/** Moves the list to a position among the board's lists, shifting those between. */
export async function moveList(ctx: ServiceContext, list: BoardListRow, position: number): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const { count } = await tx.db.selectFrom('board_lists').select((eb) => eb.fn.countAll<number>().as('count')).where('board_id', '=', list.board_id).executeTakeFirstOrThrow();
    if (position < 0 || position >= Number(count)) throw messageError(400, 'List could not be moved!');
    if (position === list.position) return;
    const now = tx.now().toISOString();
    const down = position > list.position;
    const [low, high] = down ? [list.position + 1, position] : [position, list.position - 1];
    await tx.db
      .updateTable('board_lists')
      .set((eb) => ({ position: down ? eb('position', '-', 1) : eb('position', '+', 1), updated_at: now }))
      .where('board_id', '=', list.board_id)
      .where('position', '>=', low)
      .where('position', '<=', high)
      .execute();
    await tx.db.updateTable('board_lists').set({ position, updated_at: now }).where('id', '=', list.id).execute();
  });
}

/** Removes the list; those after it move up. */
export async function deleteList(ctx: ServiceContext, list: BoardListRow): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db.deleteFrom('board_lists').where('id', '=', list.id).execute();
    await tx.db
      .updateTable('board_lists')
      .set((eb) => ({ position: eb('position', '-', 1) }))
      .where('board_id', '=', list.board_id)
      .where('position', '>', list.position)
      .execute();
  });
}

export const boardNotFound = () => apiError(404, '404 Not found');
