// Writes of memberships: add, change, remove and expire, with the platform's member model rules
// and member policies. Every change recomputes the affected users' project authorizations in the
// same transaction; project memberships record joined / left / expired events, group ones none.
import type { Kysely, NotNull, Selectable } from 'kysely';
import { type ServiceContext, atTime, requireActor, withTransaction } from '../../core/context.ts';
import { refreshAuthorizations } from '../../core/access/authorizations.ts';
import { ACCESS, GROUP_ACCESS_LEVELS, PROJECT_ACCESS_LEVELS } from '../../core/access/levels.ts';
import { type FieldErrors, apiError, conflict, forbidden, invalidFields, notFound } from '../../core/errors.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { DB, MembersTable } from '../../db/schema.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { NOT_INCLUDED, addError, fullMessagesSentence, toSentence } from '../../domain/validation.ts';
import { recordEvent } from '../events/events.service.ts';
import { deleteUser } from '../users/users.service.ts';
import {
  type MemberSource,
  type MemberView,
  findDirectMember,
  findMemberSource,
  groupSource,
  highestGroupMembership,
  otherOwners,
} from './members.finder.ts';

/** Who acts, and whether the source lets them manage its members (admin_project_member / admin_group_member). */
interface MemberEditor {
  userId: number;
  canManage: boolean;
}

const editorOf = (ctx: ServiceContext, canManage: boolean): MemberEditor => ({ userId: requireActor(ctx).user.id, canManage });

const ROLE_NAMES: Record<number, string> = {
  [ACCESS.MINIMAL_ACCESS]: 'Minimal Access',
  [ACCESS.GUEST]: 'Guest',
  [ACCESS.REPORTER]: 'Reporter',
  [ACCESS.DEVELOPER]: 'Developer',
  [ACCESS.MAINTAINER]: 'Maintainer',
  [ACCESS.OWNER]: 'Owner',
};

/** The role's name as the platform writes it ("Developer"). */
export const roleName = (level: number): string => ROLE_NAMES[level] ?? String(level);


/** The platform's find_by! miss: a record-not-found 404 with a lower-case "found". */
export const memberNotFound = () => apiError(404, '404 Not found');

const dayOf = (now: Date) => now.toISOString().slice(0, 10);

/** The date of a date or date-time parameter; an empty value or null clears the expiry. */
export function expiryDate(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) return value.slice(0, 10);
  return new Date(value).toISOString().slice(0, 10);
}

export interface MembershipInput {
  /** Null for an invitation: it inherits nothing and is nobody's yet. */
  userId: number | null;
  userType: string | null;
  accessLevel: number;
  expiresAt: string | null;
}

/**
 * The member model's validations, in its order: a future expiry, no level below one inherited
 * from a group above, no project bot joining another source, a level the source accepts.
 * `creating` is false when a membership (or an invitation) is changed.
 */
export async function membershipErrors(ctx: ServiceContext, source: MemberSource, input: MembershipInput, creating: boolean): Promise<FieldErrors | null> {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => addError(errors, field, message);
  if (input.expiresAt !== null && input.expiresAt < dayOf(ctx.now())) add('expires_at', 'cannot be a date in the past');
  const inherited = input.userId === null ? undefined : await highestGroupMembership(ctx.db, source.inheritedFrom, input.userId);
  if (inherited && inherited.access_level > input.accessLevel) {
    add('access_level', `should be greater than or equal to ${roleName(inherited.access_level)} inherited membership from group ${inherited.group_name}`);
  }
  if (creating && input.userType === 'project_bot') add('user_id', 'project bots cannot be added to other groups / projects');
  const allowed: readonly number[] = source.type === 'Project' ? PROJECT_ACCESS_LEVELS : GROUP_ACCESS_LEVELS;
  if (!allowed.includes(input.accessLevel)) add('access_level', NOT_INCLUDED);
  return Object.keys(errors).length > 0 ? errors : null;
}

/**
 * Inserts a membership (validated by the caller) and what follows from it (afterJoining).
 * `createdById` is recorded as given rather than taken from the actor: a project bot's
 * membership, made for the request's user, records none.
 */
export async function insertMembership(ctx: ServiceContext, source: MemberSource, input: { userId: number; accessLevel: number; expiresAt: string | null }, createdById: number | null): Promise<void> {
  const now = ctx.now();
  const at = now.toISOString();
  await ctx.db
    .insertInto('members')
    .values({
      source_type: source.type,
      source_id: source.id,
      user_id: input.userId,
      access_level: input.accessLevel,
      expires_at: input.expiresAt,
      created_by_id: createdById,
      created_at: at,
      updated_at: at,
    })
    .execute();
  if (source.type === 'Namespace') {
    const member = { groupId: source.id, userId: input.userId, accessLevel: input.accessLevel, expiresAt: input.expiresAt, createdAt: at, updatedAt: at };
    await enqueueHookEvent(ctx.db, { groupId: source.id }, { kind: 'member', event: 'create', ...member });
  }
  await afterJoining(atTime(ctx, now), source, input.userId);
}

/**
 * What follows a user's new membership (added, or an invitation accepted): a joined event for a
 * project unless the user owns its personal namespace, and the user's authorizations.
 */
export async function afterJoining(ctx: ServiceContext, source: MemberSource, userId: number): Promise<void> {
  if (source.type === 'Project' && userId !== source.personalOwnerId) {
    await recordEvent(ctx, { projectId: source.id, authorId: userId, action: 'joined' });
  }
  await refreshAuthorizations(ctx.db, [userId], ctx.now());
}

// ---- Policies ------------------------------------------------------------------------------------

type OwnerCheck = Pick<MemberView, 'member_id' | 'access_level' | 'state'>;

/** A group's last owner: no other active owner in it or above, and not one of several blocked owners. */
async function isLastOwner(db: Kysely<DB>, source: MemberSource, member: OwnerCheck): Promise<boolean> {
  if (source.type !== 'Namespace' || member.access_level !== ACCESS.OWNER) return false;
  const others = await otherOwners(db, [...source.inheritedFrom, source.id], member.member_id);
  return others.active === 0 && (member.state === 'active' || others.blocked === 0);
}

/** update_project_member / update_group_member. */
async function mayUpdate(db: Kysely<DB>, source: MemberSource, member: MemberView, editor: MemberEditor): Promise<boolean> {
  if (source.type === 'Project') return member.user_id !== source.personalOwnerId && member.user_type !== 'project_bot' && editor.canManage;
  return editor.canManage && !(await isLastOwner(db, source, member));
}

/** destroy_project_member / destroy_group_member: managers, or members leaving on their own. */
async function mayDestroy(db: Kysely<DB>, source: MemberSource, member: MemberView, editor: MemberEditor): Promise<boolean> {
  const self = member.user_id === editor.userId;
  if (source.type === 'Project') {
    if (member.user_id === source.personalOwnerId) return false;
    return self || (member.user_type !== 'project_bot' && editor.canManage);
  }
  return (self || editor.canManage) && !(await isLastOwner(db, source, member));
}

// ---- Writes ---------------------------------------------------------------------------------------

/** POST …/members with one user id. */
export async function addMember(ctx: ServiceContext, source: MemberSource, input: { userId: number; accessLevel: number; expiresAt: string | null }): Promise<MemberView> {
  const { db } = ctx;
  const actor = requireActor(ctx);
  if (await findDirectMember(db, source, input.userId)) throw conflict('Member already exists');
  const user = await db.selectFrom('users').select(['id', 'user_type']).where('id', '=', input.userId).executeTakeFirst();
  if (!user) throw notFound('User');
  const errors = await membershipErrors(ctx, source, { ...input, userType: user.user_type }, true);
  if (errors) throw invalidFields(errors);
  try {
    await withTransaction(ctx, (tx) => insertMembership(tx, source, input, actor.user.id));
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('Member already exists');
    throw error;
  }
  return (await findDirectMember(db, source, input.userId)) as MemberView;
}

export const BULK_LIMIT = 100;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export type BulkResult = { status: 'success' } | { status: 'error'; message: string };

/**
 * POST …/members with several user ids (or emails of users) separated by commas: each is added,
 * or updated when already a member; unknown ids are skipped; failures are reported per user.
 */
export async function addMembers(ctx: ServiceContext, source: MemberSource, canManage: boolean, list: string, accessLevel: number, expiresAt: string | null): Promise<BulkResult> {
  const { db } = ctx;
  const editor = editorOf(ctx, canManage);
  const items = list.split(',');
  // Ruby's split drops trailing empty strings.
  while (items.length > 0 && items.at(-1) === '') items.pop();
  const unique = [...new Set(items)];
  if (unique.length === 0) return { status: 'error', message: 'No users specified.' };
  if (unique.length > BULK_LIMIT) return { status: 'error', message: `Too many users specified (limit is ${BULK_LIMIT})` };
  const ids = unique.filter((s) => /^\d+$/.test(s)).map(Number).filter(Number.isSafeInteger);
  const emails = unique.filter((s) => !/^\d+$/.test(s) && EMAIL.test(s)).map((s) => s.toLowerCase());
  if (ids.length === 0 && emails.length === 0) return { status: 'success' };
  const users = await db
    .selectFrom('users')
    .select(['id', 'username', 'user_type', 'email'])
    .where((eb) => eb.or([...(ids.length ? [eb('id', 'in', ids)] : []), ...(emails.length ? [eb('email', 'in', emails)] : [])]))
    .orderBy('id')
    .execute();
  // The platform handles the users found by email before those found by id.
  const ordered = [...users.filter((u) => emails.includes(u.email)), ...users.filter((u) => !emails.includes(u.email))];
  const now = ctx.now();
  const failures: string[] = [];
  await withTransaction(atTime(ctx, now), async (tx) => {
    const trx = tx.db;
    for (const user of ordered) {
      const existing = await findDirectMember(trx, source, user.id);
      // A membership the editor may not change is left as it is, silently.
      if (existing && !(await mayUpdate(trx, source, existing, editor))) continue;
      const input = { userId: user.id, userType: user.user_type, accessLevel, expiresAt };
      const errors = await membershipErrors(tx, source, input, !existing);
      if (errors) {
        failures.push(`${user.username}: ${fullMessagesSentence(errors)}`);
        continue;
      }
      if (existing) await changeMembership(trx, existing, accessLevel, expiresAt, now);
      else await insertMembership(tx, source, input, editor.userId);
    }
  });
  return failures.length > 0 ? { status: 'error', message: toSentence(failures) } : { status: 'success' };
}

async function changeMembership(trx: Kysely<DB>, member: MemberView, accessLevel: number, expiresAt: string | null, now: Date): Promise<void> {
  const row = await trx
    .updateTable('members')
    .set({ access_level: accessLevel, expires_at: expiresAt, updated_at: now.toISOString() })
    .where('id', '=', member.member_id)
    .returningAll()
    .executeTakeFirst();
  if (row) await memberHookLater(trx, row, 'update');
  await refreshAuthorizations(trx, [member.user_id], now);
}

/** PUT …/members/:user_id. An expiry left out stays as it is. */
export async function updateMember(
  ctx: ServiceContext,
  source: MemberSource,
  canManage: boolean,
  userId: number,
  input: { accessLevel: number; expiresAt: string | null | undefined },
): Promise<MemberView> {
  const { db } = ctx;
  const editor = editorOf(ctx, canManage);
  const member = await findDirectMember(db, source, userId);
  if (!member) throw memberNotFound();
  if (!(await mayUpdate(db, source, member, editor))) throw forbidden();
  const now = ctx.now();
  const expiresAt = input.expiresAt === undefined ? member.expires_at : input.expiresAt;
  const errors = await membershipErrors(ctx, source, { userId, userType: member.user_type, accessLevel: input.accessLevel, expiresAt }, false);
  if (errors) throw invalidFields(errors);
  await withTransaction(ctx, ({ db: trx }) => changeMembership(trx, member, input.accessLevel, expiresAt, now));
  return (await findDirectMember(db, source, userId)) as MemberView;
}

/** A group membership's change, for the group's hooks that want member events. */
async function memberHookLater(db: Kysely<DB>, row: Selectable<MembersTable>, event: 'update' | 'destroy'): Promise<void> {
  if (row.source_type !== 'Namespace' || row.user_id === null) return;
  await enqueueHookEvent(db, { groupId: row.source_id }, {
    kind: 'member',
    event,
    groupId: row.source_id,
    userId: row.user_id,
    accessLevel: row.access_level,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
}

type Removal = Pick<MemberView, 'member_id' | 'user_id' | 'source_type' | 'source_id'>;

/** Deletes one membership, with a left (or expired) event for a project. */
async function destroyMembership(ctx: ServiceContext, member: Removal, action: 'left' | 'expired'): Promise<void> {
  const row = await ctx.db.deleteFrom('members').where('id', '=', member.member_id).returningAll().executeTakeFirst();
  if (row) await memberHookLater(ctx.db, row, 'destroy');
  if (member.source_type === 'Project') await recordEvent(ctx, { projectId: member.source_id, authorId: member.user_id, action });
}

/**
 * Leaving a group also ends the user's memberships of its projects and subgroups (a subgroup's
 * last owner stays), as the platform's destroy service does.
 */
async function destroyGroupSubresources(ctx: ServiceContext, group: MemberSource, userId: number): Promise<void> {
  const trx = ctx.db;
  const prefix = `${group.traversalPath}%`;
  const projectMembers = await trx
    .selectFrom('members as m')
    .innerJoin('projects as p', 'p.id', 'm.source_id')
    .innerJoin('namespaces as n', 'n.id', 'p.namespace_id')
    .select(['m.id as member_id', 'm.user_id', 'm.source_type', 'm.source_id'])
    .$narrowType<{ user_id: NotNull }>()
    .where('m.source_type', '=', 'Project')
    .where('m.user_id', '=', userId)
    .where('n.traversal_path', 'like', prefix)
    .orderBy('m.id')
    .execute();
  for (const member of projectMembers) await destroyMembership(ctx, member, 'left');
  const subgroups = await trx
    .selectFrom('members as m')
    .innerJoin('namespaces as g', 'g.id', 'm.source_id')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .selectAll('g')
    .select(['m.id as member_id', 'm.user_id', 'm.source_type', 'm.source_id', 'm.access_level', 'u.state'])
    .$narrowType<{ user_id: NotNull }>()
    .where('m.source_type', '=', 'Namespace')
    .where('m.user_id', '=', userId)
    .where('g.traversal_path', 'like', prefix)
    .where('g.id', '!=', group.id)
    .orderBy('m.id')
    .execute();
  for (const row of subgroups) {
    if (await isLastOwner(trx, groupSource(row), row)) continue;
    await destroyMembership(ctx, row, 'left');
  }
}

/** DELETE …/members/:user_id. */
export async function removeMember(ctx: ServiceContext, source: MemberSource, canManage: boolean, userId: number, options: { skipSubresources: boolean }): Promise<void> {
  const { db } = ctx;
  const editor = editorOf(ctx, canManage);
  const member = await findDirectMember(db, source, userId);
  if (!member) throw memberNotFound();
  if (!(await mayDestroy(db, source, member, editor))) throw forbidden();
  const now = ctx.now();
  await withTransaction(atTime(ctx, now), async (tx) => {
    await destroyMembership(tx, member, 'left');
    if (source.type === 'Namespace' && !options.skipSubresources) await destroyGroupSubresources(tx, source, userId);
    await refreshAuthorizations(tx.db, [userId], now);
  });
}

// ---- Expiry ---------------------------------------------------------------------------------------

export const EXPIRY_BATCH = 1000;

/**
 * Removes every membership whose expiry date has come (an expiry date is the first day without
 * access), reading EXPIRY_BATCH at a time: a project membership records an expired event, a group
 * one also ends the user's memberships below it, a group's last owner stays, and a project bot
 * whose membership expired is deleted with its tokens. Invitations whose expiry came go too.
 */
export async function removeExpiredMembers(ctx: ServiceContext): Promise<void> {
  const { db } = ctx;
  const now = ctx.now();
  let failure: unknown = null;
  let after = 0;
  for (;;) {
    const expired = await db
      .selectFrom('members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.id as member_id', 'm.source_type', 'm.source_id', 'm.user_id', 'm.access_level', 'u.state', 'u.user_type'])
      .$narrowType<{ user_id: NotNull }>()
      .where('m.expires_at', '<=', dayOf(now))
      .where('m.id', '>', after)
      .orderBy('m.id')
      .limit(EXPIRY_BATCH)
      .execute();
    if (expired.length === 0) break;
    after = expired[expired.length - 1].member_id;
    for (const member of expired) {
      try {
        const source = await findMemberSource(db, member.source_type, member.source_id);
        if (!source || (await isLastOwner(db, source, member))) continue;
        await withTransaction(atTime(ctx, now), async (tx) => {
          await destroyMembership(tx, member, 'expired');
          if (source.type === 'Namespace') await destroyGroupSubresources(tx, source, member.user_id);
          await refreshAuthorizations(tx.db, [member.user_id], now);
        });
        if (member.user_type === 'project_bot') await deleteUser(ctx, member.user_id);
      } catch (error) {
        // One membership that cannot be removed must not keep the others; the run still fails.
        failure ??= error;
      }
    }
  }
  // Invitations expire alike, with nothing to record: nobody had joined.
  await db.deleteFrom('members').where('user_id', 'is', null).where('expires_at', '<=', dayOf(now)).execute();
  if (failure) throw failure;
}
