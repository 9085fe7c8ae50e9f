// Signing up on the web and confirming an email (the platform's registrations and confirmations):
// both end by accepting the invitations waiting for the user's confirmed address.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { apiError, invalidFields, notFound } from '../../core/errors.ts';
import type { UserRow } from '../../db/schema.ts';
import { applicationSettings, signUpDomainError } from '../../domain/settings/application-settings.ts';
import { findInvitationByToken } from '../invitations/invitations.finder.ts';
import { findUserById } from '../users/users.finder.ts';
import { acceptPendingInvitations } from '../invitations/invitations.service.ts';
import { confirmEmail, createUser, deleteUser } from '../users/users.service.ts';
import { enqueue } from '../../jobs/queue.ts';
import { SEND_APPROVAL, SEND_REJECTION } from './approval-mail.ts';

export interface SignUpInput {
  name: string;
  username: string;
  email: string;
  password: string;
  /** The token of the invitation link the visitor came from, if any. */
  inviteToken: string | null;
}

export interface SignedUp {
  user: UserRow;
  /** require_admin_approval_after_user_signup: the account waits, blocked, for an administrator. */
  awaitingApproval: boolean;
  /** send_user_confirmation_email: the address waits for its confirmation link. */
  awaitingConfirmation: boolean;
}

/**
 * Creates the account (the caller checked that sign-up is open). The address is confirmed at once
 * when the instance sends no confirmation mail, or when it is the one an invitation link the
 * visitor followed was sent to (as the platform skips confirmation for the invited address).
 * An account awaiting approval accepts nothing yet.
 */
export async function signUp(ctx: ServiceContext, input: SignUpInput): Promise<SignedUp> {
  const settings = await applicationSettings(ctx.db);
  // The instance's allowed and denied domains apply to sign-ups, not to accounts administrators create.
  const domainError = signUpDomainError(settings, input.email.trim());
  if (domainError !== null) throw invalidFields({ email: [domainError] });
  const invitation = input.inviteToken ? await findInvitationByToken(ctx.db, input.inviteToken) : undefined;
  const invitedAddress = invitation !== undefined && invitation.invite_email.toLowerCase() === input.email.trim().toLowerCase();
  const confirmed = invitedAddress || !settings.send_user_confirmation_email;
  const awaitingApproval = settings.require_admin_approval_after_user_signup;
  const user = await createUser(
    ctx,
    { name: input.name, username: input.username, email: input.email, password: input.password, skip_confirmation: confirmed },
    { state: awaitingApproval ? 'blocked_pending_approval' : 'active' },
  );
  if (!awaitingApproval) await acceptPendingInvitations(ctx, user);
  return { user, awaitingApproval, awaitingConfirmation: !confirmed };
}

/** GET /users/confirmation: the user whose address the token confirms (null for an unknown token), with their invitations accepted. */
export async function confirmAndAccept(ctx: ServiceContext, token: string): Promise<UserRow | null> {
  return withTransaction(ctx, async (tx) => {
    const user = await confirmEmail(tx, token);
    if (user?.state === 'active') await acceptPendingInvitations(tx, user);
    return user;
  });
}

/**
 * POST /users/:id/approve: an administrator lets in an account that signed up while approval was
 * required; its invitations are accepted as on a sign-up without approval, and the user is told by
 * mail. The platform answers the outcome as a message, 201 "Success" included.
 */
export async function approveUser(ctx: ServiceContext, id: number): Promise<void> {
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('User');
  if (!requireActor(ctx).isAdmin) throw apiError(403, 'You are not allowed to approve a user');
  if (user.state !== 'blocked_pending_approval') throw apiError(409, 'The user you are trying to approve is not pending approval');
  await withTransaction(ctx, async (tx) => {
    const approved = await tx.db
      .updateTable('users')
      .set({ state: 'active', updated_at: tx.now().toISOString() })
      .where('id', '=', id)
      .where('state', '=', 'blocked_pending_approval')
      .returningAll()
      .executeTakeFirst();
    if (!approved) throw apiError(409, 'The user you are trying to approve is not pending approval');
    await acceptPendingInvitations(tx, approved);
    await enqueue(tx.db, SEND_APPROVAL, { userId: id });
  });
}

/**
 * POST /users/:id/reject: an administrator turns down an account waiting for approval. The account
 * is deleted with nothing handed to the ghost user (it could not write anything), and the address
 * it signed up with is told by mail.
 */
export async function rejectUser(ctx: ServiceContext, id: number): Promise<void> {
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('User');
  if (!requireActor(ctx).isAdmin) throw apiError(403, 'You are not allowed to reject a user');
  if (user.state !== 'blocked_pending_approval') throw apiError(409, 'User does not have a pending request');
  await withTransaction(ctx, async (tx) => {
    await deleteUser(tx, id, { hardDelete: true });
    await enqueue(tx.db, SEND_REJECTION, { name: user.name, email: user.email });
  });
}
