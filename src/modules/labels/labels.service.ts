// Writes of labels (Labels::CreateService, UpdateService, PromoteService, the label priorities and
// Subscribable, 14.x). Links to issues and merge requests name labels by id, so a renamed label
// keeps them; a deleted label takes its links and priorities (the foreign keys cascade) and its
// subscriptions. The platform records no event for labels.
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { type FieldErrors, invalidFields } from '../../core/errors.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { TAKEN, atLeast } from '../../domain/validation.ts';
import { type StoredLabel, sameTitleInGroup, subscriptionsOf } from './labels.finder.ts';
import type { CreateLabelBody, UpdateLabelBody } from './labels.schemas.ts';
import { cleanText } from '../../domain/plain-text.ts';
import { PRIORITY_MINIMUM, type TitleConflicts, colorFromName, labelErrors, normalizedFields } from './labels.validation.ts';

/** Where a label lives: a project (and the group it is in, whose titles it may not take), or a group. */
export type LabelOwner = { projectId: number; group: NamespaceRow | null } | { groupId: number };

const RETURNING = ['id', 'title', 'color', 'description', 'project_id', 'group_id', 'updated_at'] as const;

function ownerOf(label: StoredLabel, group: NamespaceRow | null): LabelOwner {
  return label.project_id !== null ? { projectId: label.project_id, group } : { groupId: Number(label.group_id) };
}

/** Whether another label of the owner has the title, and for a project label, its group's name if the group has it. */
async function titleConflicts(ctx: ServiceContext, owner: LabelOwner, title: string | null, exceptId: number | null, titleChanged: boolean): Promise<TitleConflicts> {
  if (title === null) return { taken: false, groupName: null };
  let same = ctx.db.selectFrom('labels').select('id').where('title', '=', title);
  same = 'projectId' in owner ? same.where('project_id', '=', owner.projectId) : same.where('group_id', '=', owner.groupId).where('project_id', 'is', null);
  if (exceptId !== null) same = same.where('id', '!=', exceptId);
  const taken = (await same.executeTakeFirst()) !== undefined;
  let groupName: string | null = null;
  if ('projectId' in owner && owner.group && titleChanged) {
    const inGroup = await ctx.db.selectFrom('labels').select('id').where('group_id', '=', owner.group.id).where('project_id', 'is', null).where('title', '=', title).executeTakeFirst();
    if (inGroup) groupName = owner.group.name;
  }
  return { taken, groupName };
}

function checkPriority(priority: number | null | undefined): void {
  if (typeof priority === 'number' && priority < PRIORITY_MINIMUM) throw invalidFields({ priority: [atLeast(PRIORITY_MINIMUM)] });
}

/** The model's refusal (400 with the failures by field), unless there is none. */
function refuseInvalid(errors: FieldErrors): void {
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** A unique index that refused a title another request took meanwhile reads as the model's own refusal. */
async function uniqueTitle<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ title: [TAKEN] });
    throw error;
  }
}

/** Sets (or with null removes) the label's priority in the project. */
export async function setPriority(ctx: ServiceContext, projectId: number, labelId: number, priority: number | null): Promise<void> {
  checkPriority(priority);
  const where = ctx.db.deleteFrom('label_priorities').where('project_id', '=', projectId).where('label_id', '=', labelId);
  if (priority === null) {
    await where.execute();
    return;
  }
  const at = ctx.now().toISOString();
  const updated = await ctx.db
    .updateTable('label_priorities')
    .set({ priority, updated_at: at })
    .where('project_id', '=', projectId)
    .where('label_id', '=', labelId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    await ctx.db.insertInto('label_priorities').values({ project_id: projectId, label_id: labelId, priority, created_at: at, updated_at: at }).execute();
  }
}

/** POST /projects/:id/labels and /groups/:id/labels, once the title is known to be free in the scope. */
export async function createLabel(ctx: ServiceContext, owner: LabelOwner, body: CreateLabelBody): Promise<StoredLabel> {
  const fields = normalizedFields({ title: cleanText(body.name) ?? null, color: colorFromName(body.color) });
  refuseInvalid(labelErrors(fields, await titleConflicts(ctx, owner, fields.title, null, true)));
  checkPriority(body.priority);
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const label = await uniqueTitle(() =>
      tx.db
        .insertInto('labels')
        .values({
          project_id: 'projectId' in owner ? owner.projectId : null,
          group_id: 'groupId' in owner ? owner.groupId : null,
          title: String(fields.title),
          color: fields.color,
          description: cleanText(body.description) ?? null,
          created_at: at,
          updated_at: at,
        })
        .returning(RETURNING)
        .executeTakeFirstOrThrow(),
    );
    if ('projectId' in owner && typeof body.priority === 'number') await setPriority(tx, owner.projectId, label.id, body.priority);
    return label;
  });
}

/** The changes an update asks of the label's own fields (new_name, color, description). */
export const asksLabelChange = (body: UpdateLabelBody) => body.new_name !== undefined || body.color !== undefined || body.description !== undefined;

/**
 * PUT …/labels/:label_id: the label's fields as a model update (a blank name or description
 * changes nothing), validated; `group` is the group a project label's project is in.
 */
export async function updateLabel(ctx: ServiceContext, label: StoredLabel, group: NamespaceRow | null, body: UpdateLabelBody): Promise<StoredLabel> {
  const title = body.new_name === undefined ? label.title : (cleanText(body.new_name) ?? label.title);
  const color = body.color === undefined ? label.color : colorFromName(body.color);
  const fields = normalizedFields({ title, color });
  const description = body.description === undefined ? label.description : (cleanText(body.description) ?? label.description);
  const changed = fields.title !== label.title || fields.color !== label.color || description !== label.description;
  const conflicts = await titleConflicts(ctx, ownerOf(label, group), fields.title, label.id, fields.title !== label.title);
  refuseInvalid(labelErrors(fields, conflicts));
  if (!changed) return label;
  return uniqueTitle(() =>
    ctx.db
      .updateTable('labels')
      .set({ title: String(fields.title), color: fields.color, description, updated_at: ctx.now().toISOString() })
      .where('id', '=', label.id)
      .returning(RETURNING)
      .executeTakeFirstOrThrow(),
  );
}

/** DELETE …/labels/:label_id. */
export async function deleteLabel(ctx: ServiceContext, label: StoredLabel): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db.deleteFrom('subscriptions').where('subscribable_type', '=', 'Label').where('subscribable_id', '=', label.id).execute();
    await tx.db.deleteFrom('labels').where('id', '=', label.id).execute();
  });
}

/**
 * PUT /projects/:id/labels/:label_id/promote: a group label of the project's group takes the
 * project label's title, colour and description, and replaces every label of that title in the
 * group and the projects directly in it: their links, label events, priorities and subscriptions (one per user,
 * the latest) move to it, and they are deleted.
 */
export async function promoteLabel(ctx: ServiceContext, label: StoredLabel, group: NamespaceRow): Promise<StoredLabel> {
  return withTransaction(ctx, async (tx) => {
    const { db } = tx;
    const at = tx.now().toISOString();
    const promoted = await db
      .insertInto('labels')
      .values({ project_id: null, group_id: group.id, title: label.title, color: label.color, description: label.description, created_at: at, updated_at: at })
      .returning(RETURNING)
      .executeTakeFirstOrThrow();
    const merged = sameTitleInGroup(db, group.id, label.title).where('labels.id', '!=', promoted.id);
    // One link per target and one priority per project survive the merge, as the indexes require.
    await db
      .deleteFrom('label_links')
      .where('label_id', 'in', merged)
      .where('id', 'not in', db.selectFrom('label_links').select((eb) => eb.fn.min('id').as('id')).where('label_id', 'in', merged).groupBy(['target_type', 'target_id']))
      .execute();
    await db.updateTable('label_links').set({ label_id: promoted.id, updated_at: at }).where('label_id', 'in', merged).execute();
    // The history of those labels names the promoted one (Labels::PromoteService#update_events).
    await db.updateTable('resource_label_events').set({ label_id: promoted.id }).where('label_id', 'in', merged).execute();
    await db
      .deleteFrom('label_priorities')
      .where('label_id', 'in', merged)
      .where('id', 'not in', db.selectFrom('label_priorities').select((eb) => eb.fn.min('id').as('id')).where('label_id', 'in', merged).groupBy('project_id'))
      .execute();
    await db.updateTable('label_priorities').set({ label_id: promoted.id, updated_at: at }).where('label_id', 'in', merged).execute();
    const latest = db
      .selectFrom('subscriptions')
      .select((eb) => eb.fn.max('id').as('id'))
      .where('subscribable_type', '=', 'Label')
      .where('subscribable_id', 'in', merged)
      .groupBy('user_id');
    await db.updateTable('subscriptions').set({ subscribable_id: promoted.id }).where('id', 'in', latest).execute();
    const mergedIds = (await merged.execute()).map((row) => row.id);
    if (mergedIds.length > 0) {
      await db.deleteFrom('subscriptions').where('subscribable_type', '=', 'Label').where('subscribable_id', 'in', mergedIds).execute();
      await db.deleteFrom('labels').where('id', 'in', mergedIds).execute();
    }
    return promoted;
  });
}

/**
 * Subscribes or unsubscribes the user at one level (a project's, or with null the label's own);
 * the subscriptions at the other levels are turned off. False when the user already was so.
 */
export async function setSubscription(ctx: ServiceContext, labelId: number, userId: number, projectId: number | null, subscribed: boolean): Promise<boolean> {
  return withTransaction(ctx, async (tx) => {
    const { db } = tx;
    const current = await subscriptionsOf(db, userId, [labelId], projectId).select('subscribed').orderBy('id', 'desc').executeTakeFirst();
    if ((current?.subscribed ?? false) === subscribed) return false;
    const at = tx.now().toISOString();
    const others = db.updateTable('subscriptions').set({ subscribed: false, updated_at: at }).where('subscribable_type', '=', 'Label').where('subscribable_id', '=', labelId).where('user_id', '=', userId);
    await (projectId === null ? others.where('project_id', 'is not', null) : others.where('project_id', 'is', null)).execute();
    if (current) {
      const here = db.updateTable('subscriptions').set({ subscribed, updated_at: at }).where('subscribable_type', '=', 'Label').where('subscribable_id', '=', labelId).where('user_id', '=', userId);
      await (projectId === null ? here.where('project_id', 'is', null) : here.where('project_id', '=', projectId)).execute();
    } else {
      await db
        .insertInto('subscriptions')
        .values({ user_id: userId, subscribable_type: 'Label', subscribable_id: labelId, project_id: projectId, subscribed, created_at: at, updated_at: at })
        .execute();
    }
    return true;
  });
}
