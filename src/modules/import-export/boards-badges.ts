// Badges and boards in export trees, a project's and a group's alike (the platform's 14.x
// import_export.yml: `project_badges` and `boards` of a project, `badges` and `boards` of a group;
// a board with its lists, a label list with its label). A board of this instance keeps only its
// label lists; the platform's board also has a backlog and a closed list, which are written around
// them (as the platform writes them) and read back as the flags they stand for. On restore, the
// label of a list is found again by title among the labels of the board's project or group, or
// made there (the platform's ObjectBuilder), and ids of milestones and users are not carried over.
import type { Kysely } from 'kysely';
import type { BadgeRow, BoardRow, DB } from '../../db/schema.ts';
import { badgeUrlErrors } from '../badges/badges.service.ts';
import type { JsonObject } from './ndjson.ts';
import { Invalid, boolish, int, list, object, required, str, time } from './record-fields.ts';
import { labelJson } from './record-json.ts';

const CHUNK = 500;

/** The badge as the platform writes it (`type` is a method of the export); a project's without group_id. */
export function badgeJson(badge: BadgeRow): JsonObject {
  return {
    id: badge.id,
    link_url: badge.link_url,
    image_url: badge.image_url,
    ...(badge.type === 'GroupBadge' ? { group_id: badge.group_id } : { project_id: badge.project_id }),
    created_at: badge.created_at,
    updated_at: badge.updated_at,
    name: badge.name,
    type: badge.type,
  };
}

export type BoardOwner = { projectId: number } | { groupIds: readonly number[] };

/** The boards of a project, or of several groups, with their lists, by owner id; a query per chunk of boards. */
export async function boardsJson(db: Kysely<DB>, owner: BoardOwner): Promise<Map<number, JsonObject[]>> {
  const boards: BoardRow[] = [];
  if ('projectId' in owner) boards.push(...(await db.selectFrom('boards').selectAll().where('project_id', '=', owner.projectId).orderBy('id').execute()));
  else {
    for (let i = 0; i < owner.groupIds.length; i += CHUNK) {
      boards.push(...(await db.selectFrom('boards').selectAll().where('group_id', 'in', owner.groupIds.slice(i, i + CHUNK)).orderBy('id').execute()));
    }
  }
  const out = new Map<number, JsonObject[]>();
  const forGroup = !('projectId' in owner);
  for (let i = 0; i < boards.length; i += CHUNK) {
    const chunk = boards.slice(i, i + CHUNK);
    const lists = await db
      .selectFrom('board_lists')
      .innerJoin('labels', 'labels.id', 'board_lists.label_id')
      .selectAll('board_lists')
      .select(['labels.title', 'labels.color', 'labels.description', 'labels.group_id as label_group_id', 'labels.project_id as label_project_id', 'labels.created_at as label_created_at', 'labels.updated_at as label_updated_at'])
      .where('board_lists.board_id', 'in', chunk.map((b) => b.id))
      .orderBy('board_lists.board_id')
      .orderBy('board_lists.position')
      .execute();
    for (const board of chunk) {
      const attributes: JsonObject = {
        id: board.id,
        project_id: board.project_id,
        group_id: board.group_id,
        created_at: board.created_at,
        updated_at: board.updated_at,
        name: board.name,
        // A project's board leaves its milestone out (excluded_attributes); a group's names it.
        ...(forGroup ? { milestone_id: board.milestone_id } : {}),
        weight: board.weight,
        hide_backlog_list: boolish(board.hide_backlog_list),
        hide_closed_list: boolish(board.hide_closed_list),
      };
      // A group's list carries its board_id, label_id and board; a project's leaves them out.
      const common = (id: number | null, type: string, position: number | null, at: string) => ({
        id,
        ...(forGroup ? { board_id: board.id } : {}),
        list_type: type,
        position,
        created_at: at,
        updated_at: at,
        user_id: null,
        max_issue_count: 0,
        max_weight: 0,
        limit_metric: null,
      });
      const labelLists = lists
        .filter((l) => l.board_id === board.id)
        .map((l) => ({
          ...common(l.id, 'label', l.position, l.created_at),
          ...(forGroup ? { label_id: l.label_id } : {}),
          updated_at: l.updated_at,
          max_issue_count: l.max_issue_count,
          max_weight: l.max_weight,
          limit_metric: l.limit_metric,
          label: labelJson({ id: l.label_id, title: l.title, color: l.color, description: l.description, group_id: l.label_group_id, created_at: l.label_created_at, updated_at: l.label_updated_at }),
          ...(forGroup ? { board: attributes } : {}),
        }));
      const json: JsonObject = {
        ...attributes,
        lists: [
          { ...common(null, 'backlog', null, board.created_at), ...(forGroup ? { board: attributes } : {}) },
          ...labelLists,
          { ...common(null, 'closed', null, board.created_at), ...(forGroup ? { board: attributes } : {}) },
        ],
      };
      const key = Number(board.project_id ?? board.group_id);
      out.set(key, [...(out.get(key) ?? []), json]);
    }
  }
  return out;
}

export type BadgeOwner = { projectId: number } | { groupId: number };

/** The row of an archive's badge, checked as the badge's model checks it; throws Invalid. */
export function badgeRow(record: JsonObject, owner: BadgeOwner, now: string) {
  const linkUrl = required(record.link_url, 'Link url', 2048);
  const imageUrl = required(record.image_url, 'Image url', 2048);
  const errors = badgeUrlErrors({ link_url: linkUrl, image_url: imageUrl });
  if (errors.link_url) throw new Invalid('Link url must be a valid URL');
  if (errors.image_url) throw new Invalid('Image url must be a valid URL');
  const name = str(record.name);
  if (name !== null && name.length > 255) throw new Invalid('Name is too long (maximum is 255 characters)');
  const createdAt = time(record.created_at, now);
  return {
    type: 'projectId' in owner ? ('ProjectBadge' as const) : ('GroupBadge' as const),
    project_id: 'projectId' in owner ? owner.projectId : null,
    group_id: 'groupId' in owner ? owner.groupId : null,
    name,
    link_url: linkUrl,
    image_url: imageUrl,
    created_at: createdAt,
    updated_at: time(record.updated_at, createdAt),
  };
}

/**
 * Restores one board of an archive with its label lists; `labelOf` answers the id of the label a
 * list names (found or made in the board's project or group) and throws Invalid when it cannot.
 * The board's own fields are checked before anything is written; a list whose label does not hold
 * is left out, as the platform leaves out a list without its label.
 */
export async function restoreBoard(db: Kysely<DB>, record: JsonObject, owner: BadgeOwner, labelOf: (label: JsonObject) => Promise<number>, now: string): Promise<void> {
  const name = required(record.name, 'Name');
  const createdAt = time(record.created_at, now);
  const weight = int(record.weight);
  const board = await db
    .insertInto('boards')
    .values({
      project_id: 'projectId' in owner ? owner.projectId : null,
      group_id: 'groupId' in owner ? owner.groupId : null,
      name,
      hide_backlog_list: boolish(record.hide_backlog_list),
      hide_closed_list: boolish(record.hide_closed_list),
      milestone_id: null,
      assignee_id: null,
      weight: weight !== null && weight <= 2_147_483_647 ? weight : null,
      created_at: createdAt,
      updated_at: time(record.updated_at, createdAt),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const labelLists = list(record.lists)
    .filter((l) => (str(l.list_type) ?? 'label') === 'label' && object(l.label) !== null)
    .sort((a, b) => (int(a.position) ?? Number.MAX_SAFE_INTEGER) - (int(b.position) ?? Number.MAX_SAFE_INTEGER));
  const seen = new Set<number>();
  const rows = [];
  for (const l of labelLists) {
    let labelId: number;
    try {
      labelId = await labelOf(object(l.label) as JsonObject);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      continue;
    }
    if (seen.has(labelId)) continue;
    seen.add(labelId);
    const limit = (v: unknown) => Math.min(int(v) ?? 0, 2_147_483_647);
    const metric = str(l.limit_metric);
    const at = time(l.created_at, createdAt);
    rows.push({
      board_id: board.id,
      label_id: labelId,
      position: rows.length,
      max_issue_count: limit(l.max_issue_count),
      max_weight: limit(l.max_weight),
      limit_metric: metric === 'issue_count' || metric === 'issue_weights' || metric === 'all_metrics' ? metric : null,
      created_at: at,
      updated_at: time(l.updated_at, at),
    });
  }
  if (rows.length > 0) await db.insertInto('board_lists').values(rows).execute();
}
