// Invitations by email (the platform's Members::InviteService and Member#accept_invite!): an
// address that a confirmed user owns makes that user a member at once; any other becomes a
// pending member row (no user) whose mail goes out through the job queue, in the transaction that
// made it. A pending invitation grants nothing: it joins no user, so it reaches no authorization,
// member list or member count. It becomes a membership in place when the address's owner, with the
// address confirmed, follows its link, signs up or confirms the address.
import type { Kysely, NotNull } from 'kysely';
import { type ServiceContext, atTime, requireActor, withTransaction } from '../../core/context.ts';
import { badRequest, conflict, invalidFields } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { containsText } from '../../core/search.ts';
import type { DB, UserRow } from '../../db/schema.ts';
import { fullMessagesSentence } from '../../domain/validation.ts';
import { enqueue } from '../../jobs/queue.ts';
import { type MemberSource, findDirectMember, findMemberSource } from '../members/members.finder.ts';
import { BULK_LIMIT, afterJoining, insertMembership, memberNotFound, membershipErrors } from '../members/members.service.ts';
import { findUserByEmail } from '../users/users.finder.ts';
import { SEND_INVITATION } from './invitation-mail.ts';
import { type InvitationView, findInvitation } from './invitations.finder.ts';
import type { InviteResult } from './invitations.schemas.ts';

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Rule 1: a direct member of the source already has the address as their email. */
async function memberWithEmail(db: Kysely<DB>, source: MemberSource, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select('m.id')
    .where('m.source_type', '=', source.type)
    .where('m.source_id', '=', source.id)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  return row !== undefined;
}

/** Rule 2: a pending invitation's address contains this one (the platform's ILIKE '%email%'). */
async function invitedAlready(db: Kysely<DB>, source: MemberSource, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('members as m')
    .select('m.id')
    .where('m.source_type', '=', source.type)
    .where('m.source_id', '=', source.id)
    .where('m.user_id', 'is', null)
    .where((eb) => containsText(eb.fn('lower', ['m.invite_email']), email.toLowerCase()))
    .executeTakeFirst();
  return row !== undefined;
}

/** One address of a request: null when it was added or invited, else why not. */
async function inviteOne(ctx: ServiceContext, source: MemberSource, email: string, accessLevel: number, expiresAt: string | null, inviterId: number): Promise<string | null> {
  const { db } = ctx;
  if (await memberWithEmail(db, source, email)) return `Already a member of ${source.name}`;
  if (await invitedAlready(db, source, email)) return `Member already invited to ${source.name}`;
  // A confirmed user who owns the address is added rather than invited.
  const user = await findUserByEmail(db, email);
  const owner = user?.confirmed_at ? user : undefined;
  const errors = await membershipErrors(ctx, source, { userId: owner?.id ?? null, userType: owner?.user_type ?? null, accessLevel, expiresAt }, true);
  if (errors) return fullMessagesSentence(errors);
  if (owner) {
    await insertMembership(ctx, source, { userId: owner.id, accessLevel, expiresAt }, inviterId);
    return null;
  }
  const at = ctx.now().toISOString();
  const { id } = await db
    .insertInto('members')
    .values({
      source_type: source.type,
      source_id: source.id,
      user_id: null,
      access_level: accessLevel,
      expires_at: expiresAt,
      created_by_id: inviterId,
      created_at: at,
      updated_at: at,
      invite_email: email,
      invite_token: null,
      invite_accepted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await enqueue(db, SEND_INVITATION, { memberId: id });
  return null;
}

/**
 * POST …/invitations. Addresses are taken in order, each on its own (one's failure keeps none
 * of the others from being added or invited), in one transaction.
 */
export async function inviteMembers(ctx: ServiceContext, source: MemberSource, emails: readonly string[], accessLevel: number, expiresAt: string | null): Promise<InviteResult> {
  const inviter = requireActor(ctx).user.id;
  const unique = [...new Set(emails)];
  if (unique.length === 0) return { status: 'error', message: 'Email cannot be blank' };
  if (unique.length > BULK_LIMIT) return { status: 'error', message: `Too many users specified (limit is ${BULK_LIMIT})` };
  const failures: Record<string, string> = {};
  await withTransaction(atTime(ctx, ctx.now()), async (tx) => {
    for (const email of unique) {
      const failure = await inviteOne(tx, source, email, accessLevel, expiresAt, inviter);
      if (failure !== null) failures[email] = failure;
    }
  });
  return Object.keys(failures).length > 0 ? { status: 'error', message: failures } : { status: 'success' };
}

/**
 * PUT …/invitations/:email: the level, the expiry, or both (neither: 400, once the invitation is
 * found); the model's rules as for a membership. The level has no default: spec Part 2 §4.7's
 * "default 30" is the platform's description of the parameter, whose code changes only what is sent.
 */
export async function updateInvitation(
  ctx: ServiceContext,
  source: MemberSource,
  email: string,
  changes: { accessLevel: number | undefined; expiresAt: string | null | undefined },
): Promise<{ access_level: number; expires_at: string | null }> {
  const invitation = await findInvitation(ctx.db, source, email);
  if (!invitation) throw memberNotFound();
  if (changes.accessLevel === undefined && changes.expiresAt === undefined) throw badRequest();
  const accessLevel = changes.accessLevel ?? invitation.access_level;
  const expiresAt = changes.expiresAt === undefined ? invitation.expires_at : changes.expiresAt;
  const errors = await membershipErrors(ctx, source, { userId: null, userType: null, accessLevel, expiresAt }, false);
  if (errors) throw invalidFields(errors);
  await ctx.db
    .updateTable('members')
    .set({ access_level: accessLevel, expires_at: expiresAt, updated_at: ctx.now().toISOString() })
    .where('id', '=', invitation.id)
    .where('user_id', 'is', null)
    .execute();
  return { access_level: accessLevel, expires_at: expiresAt };
}

/** DELETE …/invitations/:email, with the platform's If-Unmodified-Since precondition. */
export async function removeInvitation(ctx: ServiceContext, source: MemberSource, email: string, unmodifiedSince: string | string[] | undefined): Promise<void> {
  const invitation = await findInvitation(ctx.db, source, email);
  if (!invitation) throw memberNotFound();
  checkUnmodifiedSince(unmodifiedSince, Date.parse(invitation.updated_at));
  await destroyInvitation(ctx, invitation);
}

/**
 * Deletes a pending invitation. One accepted (or deleted) since it was read is not: spec Part 2
 * §4.7 answers 409 when the deletion cannot be performed (the platform 422).
 */
export async function destroyInvitation(ctx: ServiceContext, invitation: Pick<InvitationView, 'id'>): Promise<void> {
  const result = await ctx.db.deleteFrom('members').where('id', '=', invitation.id).where('user_id', 'is', null).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw conflict();
}

// ---- Acceptance ------------------------------------------------------------------------------------

export type AcceptedInvitation = { accepted: true; source: MemberSource } | { accepted: false; reason: 'another_address' | 'unconfirmed' | 'refused' };

/**
 * Makes the invitation the user's membership in place (user set, token cleared, time kept),
 * with what follows a new membership. Only the owner of the invited address, confirmed, may; and
 * only when the membership would be valid (not a member already, nothing higher inherited, not
 * expired).
 */
export async function acceptInvitation(ctx: ServiceContext, invitation: Pick<InvitationView, 'id' | 'source_type' | 'source_id' | 'invite_email' | 'access_level' | 'expires_at'>, user: UserRow): Promise<AcceptedInvitation> {
  if (!sameAddress(user.email, invitation.invite_email)) return { accepted: false, reason: 'another_address' };
  if (user.confirmed_at === null) return { accepted: false, reason: 'unconfirmed' };
  const refused = { accepted: false, reason: 'refused' } as const;
  if (user.state !== 'active') return refused;
  return withTransaction(atTime(ctx, ctx.now()), async (tx) => {
    const source = await findMemberSource(tx.db, invitation.source_type, invitation.source_id);
    if (!source || (await findDirectMember(tx.db, source, user.id))) return refused;
    const input = { userId: user.id, userType: user.user_type, accessLevel: invitation.access_level, expiresAt: invitation.expires_at };
    if (await membershipErrors(tx, source, input, true)) return refused;
    const at = tx.now().toISOString();
    const result = await tx.db
      .updateTable('members')
      .set({ user_id: user.id, invite_token: null, invite_accepted_at: at, updated_at: at })
      .where('id', '=', invitation.id)
      .where('user_id', 'is', null)
      .executeTakeFirst();
    // Accepted or withdrawn since it was read.
    if (Number(result.numUpdatedRows) === 0) return refused;
    await afterJoining(tx, source, user.id);
    return { accepted: true, source };
  });
}

/** Every pending invitation of the user's confirmed address becomes theirs (signing up, confirming), as far as each may. */
export async function acceptPendingInvitations(ctx: ServiceContext, user: UserRow): Promise<void> {
  if (user.confirmed_at === null) return;
  const pending = await ctx.db
    .selectFrom('members')
    .select(['id', 'source_type', 'source_id', 'invite_email', 'access_level', 'expires_at'])
    .where('user_id', 'is', null)
    .where((eb) => eb(eb.fn('lower', ['invite_email']), '=', user.email.toLowerCase()))
    .$narrowType<{ invite_email: NotNull }>()
    .orderBy('id')
    .execute();
  for (const invitation of pending) await acceptInvitation(ctx, invitation, user);
}
