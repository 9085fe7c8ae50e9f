// A group tree restored into the group made for the import (the platform's Group::TreeRestorer,
// GroupRestorer and MembersMapper, 14.x ndjson layout). The first id of tree/groups/_all.ndjson is
// the exported group: its attributes (all but name, path and visibility, which the request chose)
// and relations go into the import's group. Each later id is a subgroup, made under the group its
// parent_id names, at its own visibility capped to its parent's (the closest level allowed), with
// the same relations. A subgroup or record that does not hold is left out and reported as a failed
// relation while the rest goes in; a malformed file fails the whole import. Everything runs in the
// caller's transaction.
//
// Members (MembersMapper): when an administrator imports, each group's exported members are mapped
// to the active users of this instance with the same email and join that group with their role
// (Guest to Owner); the importer, already Owner of every group made, keeps that role. When anyone
// else imports, nobody is mapped.
//
// Badges and boards follow labels: a board's label lists name their labels by title, found again
// among the labels of the group made (or its ancestors') or made in it.
import path from 'node:path';
import { type TSchema, Type } from '@sinclair/typebox';
import { refreshAuthorizations } from '../../core/access/authorizations.ts';
import { ACCESS, GROUP_ACCESS_LEVELS, visibilityName } from '../../core/access/levels.ts';
import { type ServiceContext, requireActor } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import { parseParams } from '../../core/params.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { trackGroupInternalId } from '../../domain/internal-ids.ts';
import { PROJECT_CREATION_LEVELS, applicationSettings } from '../../domain/settings/application-settings.ts';
import { SUBGROUP_CREATION_LEVELS } from '../../domain/settings/namespace-settings.ts';
import { UpdateGroupBody } from '../groups/groups.schemas.ts';
import { createGroup, updateGroup } from '../groups/groups.service.ts';
import { ArchiveError, type JsonObject, badgeRow, fields, readAttributes, readIds, readRelation, restoreBoard } from '../import-export/index.ts';
import { closestAllowedVisibility } from './group-visibility.ts';

const { COLOR, Invalid, dateOrNull, int, invalidRecord, object, required, str, text, time } = fields;
type RelationFailure = fields.RelationFailure;

export const INCOMPATIBLE = 'The import file is incompatible';
/** What an archive may hold at most: the platform has no such limit, an instance needs one. */
const MAX_GROUPS = 10_000;

export interface GroupRestoreResult {
  failures: RelationFailure[];
  /** Groups made below the import's group, by their id in the archive. */
  groups: Map<number, NamespaceRow>;
}

/** The archive's group attributes as update parameters: those the group accepts, each valid on its own. */
function attributeParams(attributes: JsonObject): Partial<UpdateGroupBody> {
  const raw: Record<string, unknown> = { ...attributes };
  const level = <T extends readonly string[]>(names: T, v: unknown) => (typeof v === 'number' ? names[v] : v);
  raw.project_creation_level = level(PROJECT_CREATION_LEVELS, attributes.project_creation_level);
  raw.subgroup_creation_level = level(SUBGROUP_CREATION_LEVELS, attributes.subgroup_creation_level);
  // A lock is only ever added: one the parent imposes is not lifted by an archive.
  if (raw.share_with_group_lock !== true) delete raw.share_with_group_lock;
  const out: Record<string, unknown> = {};
  const properties = UpdateGroupBody.properties as Record<string, TSchema>;
  const allowed = [
    'description',
    'request_access_enabled',
    'project_creation_level',
    'subgroup_creation_level',
    'share_with_group_lock',
    'require_two_factor_authentication',
    'two_factor_grace_period',
    'auto_devops_enabled',
    'emails_disabled',
    'mentions_disabled',
    'lfs_enabled',
    'default_branch_protection',
  ];
  for (const key of allowed) {
    const schema = properties[key];
    if (!schema || raw[key] === undefined || raw[key] === null) continue;
    try {
      const parsed = parseParams<Record<string, unknown>>(Type.Object({ [key]: schema }), { [key]: raw[key] });
      if (parsed[key] !== undefined) out[key] = parsed[key];
    } catch {
      // A value the group would refuse is dropped, as the platform's attribute cleaner drops unknown ones.
    }
  }
  return out as Partial<UpdateGroupBody>;
}

/** Restores tree/ (under the extracted archive) into `top`; runs inside the caller's transaction. */
export async function restoreGroupTree(ctx: ServiceContext, top: NamespaceRow, treeDir: string, mapUsers: boolean): Promise<GroupRestoreResult> {
  const importer = requireActor(ctx).user;
  const now = ctx.now().toISOString();
  const failures: RelationFailure[] = [];
  const groupsDir = path.join(treeDir, 'groups');
  const ids = [...new Set(await readIds(path.join(groupsDir, '_all.ndjson')))];
  if (ids.length === 0) throw new ArchiveError(INCOMPATIBLE);
  if (ids.length > MAX_GROUPS) throw new ArchiveError(`Invalid file: the archive holds more than ${MAX_GROUPS} groups`);
  const instance = await applicationSettings(ctx.db);
  const mapping = new Map<number, NamespaceRow>();
  const memberIds = new Set<number>();

  /** The group's attributes, checked to be the group the list names. */
  async function attributesOf(id: number): Promise<JsonObject> {
    const attributes = await readAttributes(path.join(groupsDir, `${id}.json`));
    if (int(attributes.id) !== id) throw new Invalid(`Invalid group_id for ${id}`);
    return attributes;
  }

  /** Runs one record of a relation; a record that does not hold is reported and skipped. */
  async function each(dir: string, relation: string, work: (record: JsonObject) => Promise<void>): Promise<void> {
    for await (const [record, index] of readRelation(path.join(dir, `${relation}.ndjson`))) {
      try {
        await work(record);
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        failures.push(invalidRecord(relation, index, error));
      }
    }
  }

  /** The group's own attributes and relations (GroupRestorer). */
  async function restoreGroup(group: NamespaceRow, oldId: number, attributes: JsonObject): Promise<void> {
    mapping.set(oldId, group);
    const dir = path.join(groupsDir, String(oldId));
    const params = attributeParams(attributes);
    if (Object.keys(params).length > 0) {
      try {
        const parent = group.parent_id === null ? null : ((await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', group.parent_id).executeTakeFirst()) ?? null);
        await updateGroup(ctx, group, params, { parent, administersParent: false });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        failures.push({ relation_key: 'group', relation_index: null, exception_class: 'ActiveRecord::RecordInvalid', exception_message: error.message, source: 'update_params!' });
      }
    }

    // Members first, as the platform maps them before anything else.
    const roles = new Map<number, number>();
    if (mapUsers) {
      const byEmail = new Map<string, number>();
      for await (const [member] of readRelation(path.join(dir, 'members.ndjson'))) {
        const user = object(member.user);
        const email = str(user?.email) ?? str(user?.public_email);
        if (!email) continue;
        const level = int(member.access_level) ?? ACCESS.GUEST;
        byEmail.set(email.toLowerCase(), Math.min(Math.max(level, ACCESS.GUEST), ACCESS.OWNER));
      }
      const emails = [...byEmail.keys()];
      for (let i = 0; i < emails.length; i += 500) {
        const chunk = emails.slice(i, i + 500);
        const found = await ctx.db
          .selectFrom('users')
          .select(['id', 'email'])
          .where((eb) => eb(eb.fn('lower', ['email']), 'in', chunk))
          .where('state', '=', 'active')
          .execute();
        for (const user of found) {
          const level = byEmail.get(user.email.toLowerCase());
          // A level between the named ones (5, a premium Minimal Access) becomes the one below it.
          if (level !== undefined) roles.set(user.id, Math.max(...GROUP_ACCESS_LEVELS.filter((l) => l <= level && l >= ACCESS.GUEST)));
        }
      }
    }
    roles.delete(importer.id);
    if (roles.size > 0) {
      const present = new Set(
        (await ctx.db.selectFrom('members').select('user_id').where('source_type', '=', 'Namespace').where('source_id', '=', group.id).execute()).map((m) => Number(m.user_id)),
      );
      const rows = [...roles].filter(([userId]) => !present.has(userId));
      if (rows.length > 0) {
        await ctx.db
          .insertInto('members')
          .values(rows.map(([user_id, access_level]) => ({ source_type: 'Namespace', source_id: group.id, user_id, access_level, expires_at: null, created_by_id: importer.id, created_at: now, updated_at: now })))
          .execute();
        for (const [userId] of rows) memberIds.add(userId);
      }
    }

    const milestoneTitles = new Set<string>();
    const iids = new Set<number>();
    const pending: JsonObject[] = [];
    await each(dir, 'milestones', async (record) => {
      const title = required(record.title, 'Title');
      if (milestoneTitles.has(title)) throw new Invalid('Title has already been taken');
      const iid = int(record.iid);
      if (iid !== null && iid <= 0) throw new Invalid('Iid must be greater than 0');
      if (iid !== null && iids.has(iid)) throw new Invalid('Iid has already been taken');
      text(record.description, 'Description');
      milestoneTitles.add(title);
      if (iid !== null) iids.add(iid);
      pending.push(record);
    });
    // Milestones keep their iids; one without gets the next after the highest.
    let next = Math.max(0, ...iids);
    const milestoneRows = pending.map((record) => {
      const createdAt = time(record.created_at, now);
      return {
        project_id: null,
        group_id: group.id,
        iid: int(record.iid) ?? ++next,
        title: record.title as string,
        description: str(record.description),
        state: record.state === 'closed' ? 'closed' : 'active',
        due_date: dateOrNull(record.due_date),
        start_date: dateOrNull(record.start_date),
        created_at: createdAt,
        updated_at: time(record.updated_at, createdAt),
      };
    });
    for (let i = 0; i < milestoneRows.length; i += 100) await ctx.db.insertInto('milestones').values(milestoneRows.slice(i, i + 100)).execute();
    if (next > 0) await trackGroupInternalId(ctx, group.id, 'milestones', next);

    // The platform's order: milestones, badges, labels, boards.
    const badgeRows: ReturnType<typeof badgeRow>[] = [];
    await each(dir, 'badges', async (record) => void badgeRows.push(badgeRow(record, { groupId: group.id }, now)));
    for (let i = 0; i < badgeRows.length; i += 100) await ctx.db.insertInto('badges').values(badgeRows.slice(i, i + 100)).execute();

    const labelTitles = new Set<string>();
    const labelRows: { project_id: null; group_id: number; title: string; color: string; description: string | null; created_at: string; updated_at: string }[] = [];
    await each(dir, 'labels', async (record) => {
      const title = required(record.title, 'Title').trim();
      if (labelTitles.has(title)) throw new Invalid('Title has already been taken');
      const color = str(record.color) ?? '#428BCA';
      if (!COLOR.test(color)) throw new Invalid('Color must be a valid color code');
      labelTitles.add(title);
      const createdAt = time(record.created_at, now);
      labelRows.push({ project_id: null, group_id: group.id, title, color, description: text(record.description, 'Description') || null, created_at: createdAt, updated_at: time(record.updated_at, createdAt) });
    });
    for (let i = 0; i < labelRows.length; i += 100) await ctx.db.insertInto('labels').values(labelRows.slice(i, i + 100)).execute();


    // A list's label is found by title among the labels of the group and its ancestors (those of
    // the archive were restored above, parents first), or made in the group.
    const ancestors = group.traversal_path.split('/').filter(Boolean).map(Number);
    const usable = new Map<string, { id: number; own: boolean }>();
    for (const l of await ctx.db.selectFrom('labels').select(['id', 'title', 'group_id']).where('group_id', 'in', ancestors).execute()) {
      const own = Number(l.group_id) === group.id;
      if (own || !usable.get(l.title)?.own) usable.set(l.title, { id: l.id, own });
    }
    const labelOf = async (label: JsonObject): Promise<number> => {
      const title = required(label.title, 'Title').trim();
      const known = usable.get(title);
      if (known) return known.id;
      const color = str(label.color) ?? '#428BCA';
      if (!COLOR.test(color)) throw new Invalid('Color must be a valid color code');
      const description = text(label.description, 'Description') || null;
      const inserted = await ctx.db.insertInto('labels').values({ project_id: null, group_id: group.id, title, color, description, created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      usable.set(title, { id: inserted.id, own: true });
      return inserted.id;
    };
    await each(dir, 'boards', (record) => restoreBoard(ctx.db, record, { groupId: group.id }, labelOf, now));
  }

  const [rootId, ...childIds] = ids;
  let rootAttributes: JsonObject;
  try {
    rootAttributes = await attributesOf(rootId);
  } catch (error) {
    throw error instanceof Invalid ? new ArchiveError(error.message) : error;
  }
  await restoreGroup(top, rootId, rootAttributes);

  for (const childId of childIds) {
    try {
      const attributes = await attributesOf(childId);
      const parent = mapping.get(int(attributes.parent_id) ?? -1);
      if (!parent) throw new Invalid('Parent group not found');
      const wanted = int(attributes.visibility_level) ?? 0;
      const visibility = visibilityName(closestAllowedVisibility(instance, Math.min(wanted, parent.visibility_level)));
      const name = str(attributes.name) ?? '';
      const groupPath = str(attributes.path) ?? '';
      const group = await createGroup(ctx, { name, path: groupPath, visibility }, parent);
      await restoreGroup(group, childId, attributes);
    } catch (error) {
      if (error instanceof Invalid || (error instanceof DomainError && error.status === 400)) {
        failures.push({ relation_key: 'group', relation_index: null, exception_class: error instanceof Invalid ? 'ArgumentError' : 'ActiveRecord::RecordInvalid', exception_message: error.message, source: 'process_child' });
        continue;
      }
      throw error;
    }
  }
  if (memberIds.size > 0) await refreshAuthorizations(ctx.db, [...memberIds], ctx.now());
  mapping.delete(rootId);
  return { failures, groups: mapping };
}
