// A group and its subgroups written as the platform's 14.x group export tree (its Group::TreeSaver
// and import_export.yml): tree/groups/_all.ndjson lists the group ids, the exported group first and
// then its descendants by depth; tree/groups/<id>.json holds each group's attributes and
// tree/groups/<id>/<relation>.ndjson its records, a line each. Members carry their user as
// {id, email, username}; boards carry their lists, a label list its label. Runner tokens and
// other secrets are not written. Each relation is read for the whole subtree at once (in chunks
// of ids), not group by group.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { inSubtree } from '../../core/access/subtree.ts';
import type { DB, NamespaceRow } from '../../db/schema.ts';
import { PROJECT_CREATION_LEVELS } from '../../domain/settings/application-settings.ts';
import { SUBGROUP_CREATION_LEVELS, loadNamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { type JsonObject, NdjsonWriter, badgeJson, boardsJson, labelJson, milestoneJson } from '../import-export/index.ts';

/** The relation files of each group, in the platform's order (its group import_export.yml tree). */
export const GROUP_RELATIONS = ['milestones', 'badges', 'labels', 'boards', 'members'] as const;
export type GroupRelation = (typeof GROUP_RELATIONS)[number];

const CHUNK = 500;

/** Rows of a table for these groups, read a chunk of ids at a time. */
async function byGroup<T>(ids: readonly number[], read: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) out.push(...(await read(ids.slice(i, i + CHUNK))));
  return out;
}

function groupBy<T>(rows: readonly T[], key: (row: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const row of rows) {
    const list = out.get(key(row)) ?? [];
    list.push(row);
    out.set(key(row), list);
  }
  return out;
}

const depth = (g: NamespaceRow) => g.traversal_path.split('/').length;

/** Writes tree/groups/… for the group and every group below it under `dir`. */
export async function writeGroupTree(db: Kysely<DB>, root: NamespaceRow, dir: string): Promise<void> {
  const groupsDir = path.join(dir, 'tree', 'groups');
  await fs.mkdir(groupsDir, { recursive: true });
  const groups = (await db.selectFrom('namespaces').selectAll().where('type', '=', 'Group').where(inSubtree('traversal_path', root.traversal_path)).execute()).sort(
    (a, b) => depth(a) - depth(b) || a.id - b.id,
  );
  const ids = groups.map((g) => g.id);
  const settings = await loadNamespaceSettings(db, ids);
  const milestones = groupBy(
    await byGroup(ids, (chunk) => db.selectFrom('milestones').selectAll().where('group_id', 'in', chunk).orderBy('id').execute()),
    (m) => Number(m.group_id),
  );
  const labels = groupBy(
    await byGroup(ids, (chunk) => db.selectFrom('labels').selectAll().where('group_id', 'in', chunk).orderBy('id').execute()),
    (l) => Number(l.group_id),
  );
  const badges = groupBy(
    await byGroup(ids, (chunk) => db.selectFrom('badges').selectAll().where('type', '=', 'GroupBadge').where('group_id', 'in', chunk).orderBy('id').execute()),
    (b) => Number(b.group_id),
  );
  const boards = await boardsJson(db, { groupIds: ids });
  const members = groupBy(
    await byGroup(ids, (chunk) =>
      db
        .selectFrom('members')
        .innerJoin('users', 'users.id', 'members.user_id')
        .select(['members.id', 'members.source_id', 'members.user_id', 'members.access_level', 'members.expires_at', 'members.created_by_id', 'members.created_at', 'members.updated_at', 'users.email', 'users.username'])
        .where('members.source_type', '=', 'Namespace')
        .where('members.source_id', 'in', chunk)
        .orderBy('members.id')
        .execute(),
    ),
    (m) => Number(m.source_id),
  );

  for (const group of groups) {
    const s = settings.get(group.id);
    const attributes: JsonObject = {
      id: group.id,
      name: group.name,
      path: group.path,
      description: group.description,
      visibility_level: group.visibility_level,
      parent_id: group.parent_id,
      type: 'Group',
      request_access_enabled: Boolean(group.request_access_enabled),
      // Stored by the platform as the index of the level's name.
      project_creation_level: PROJECT_CREATION_LEVELS.indexOf(group.project_creation_level as (typeof PROJECT_CREATION_LEVELS)[number]),
      subgroup_creation_level: SUBGROUP_CREATION_LEVELS.indexOf(group.subgroup_creation_level as (typeof SUBGROUP_CREATION_LEVELS)[number]),
      share_with_group_lock: s?.share_with_group_lock ?? false,
      require_two_factor_authentication: s?.require_two_factor_authentication ?? false,
      two_factor_grace_period: s?.two_factor_grace_period ?? 48,
      auto_devops_enabled: s?.auto_devops_enabled ?? null,
      emails_disabled: s?.emails_disabled ?? null,
      mentions_disabled: s?.mentions_disabled ?? null,
      lfs_enabled: s?.lfs_enabled ?? null,
      default_branch_protection: s?.default_branch_protection ?? null,
    };
    await fs.writeFile(path.join(groupsDir, `${group.id}.json`), JSON.stringify(attributes), { flag: 'wx' });
    const relations = path.join(groupsDir, String(group.id));
    await fs.mkdir(relations);
    const write = async (relation: GroupRelation, records: JsonObject[]) => {
      const out = new NdjsonWriter(path.join(relations, `${relation}.ndjson`));
      try {
        for (const record of records) await out.write(record);
      } finally {
        await out.close();
      }
    };
    await write('milestones', (milestones.get(group.id) ?? []).map(milestoneJson));
    await write('badges', (badges.get(group.id) ?? []).map(badgeJson));
    await write('labels', (labels.get(group.id) ?? []).map(labelJson));
    await write('boards', boards.get(group.id) ?? []);
    await write(
      'members',
      (members.get(group.id) ?? []).map((m) => ({
        id: m.id,
        access_level: m.access_level,
        source_id: m.source_id,
        source_type: 'Namespace',
        user_id: m.user_id,
        notification_level: 3,
        created_at: m.created_at,
        updated_at: m.updated_at,
        created_by_id: m.created_by_id,
        expires_at: m.expires_at,
        user: { id: m.user_id, email: m.email, username: m.username },
      })),
    );
  }
  const all = new NdjsonWriter(path.join(groupsDir, '_all.ndjson'));
  try {
    for (const id of ids) await all.writeValue(id);
  } finally {
    await all.close();
  }
}
