// Writes of users: create, update, delete, block, identities. Each owns its transaction and
// throws the platform's errors (400 field messages, 404, 409 conflicts).
import { randomBytes } from 'node:crypto';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { type Kysely, sql } from 'kysely';
import type { DB, NewUser, UserRow, UserUpdate } from '../../db/schema.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { digest, hashPassword } from '../../core/auth/secrets.ts';
import { apiError, conflict, forbidden, invalidFields, notFound } from '../../core/errors.ts';
import { BLANK, TAKEN, addError, fullMessage } from '../../domain/validation.ts';
import { createPersonalNamespace, syncPersonalNamespace, topLevelPathTaken } from './personal-namespace.ts';
import { findUserById } from './users.finder.ts';
import { handOverContributions } from '../../domain/contributions.ts';
import { removeSnippets } from '../../domain/snippet-repositories.ts';
import { INTERNAL_USER_TYPES } from './users.presenter.ts';
import type { CreateUserBody, UpdateUserBody } from './users.schemas.ts';
import { validateUser } from './users.validation.ts';
import { enqueue } from '../../jobs/queue.ts';
import { SEND_CONFIRMATION } from './confirmation-mail.ts';


/** Column defaults of a new user, spelled out so that both dialects store the same values. */
export const NEW_USER_DEFAULTS = {
  state: 'active',
  admin: false,
  external: false,
  bio: '',
  location: '',
  skype: '',
  linkedin: '',
  twitter: '',
  website_url: '',
  organization: '',
  job_title: '',
  private_profile: false,
  can_create_group: true,
  theme_id: 1,
  color_scheme_id: 1,
  two_factor_enabled: false,
  sign_in_count: 0,
} satisfies Partial<NewUser>;

const PROFILE_TEXT = ['bio', 'location', 'organization', 'job_title', 'linkedin', 'skype', 'twitter', 'website_url'] as const;

/** Another user's primary address, or another user's further address (a user may promote their own). */
async function emailTaken(db: Kysely<DB>, email: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('users').select('id').where(sql`lower(email)`, '=', email.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  if ((await q.executeTakeFirst()) !== undefined) return true;
  let further = db.selectFrom('emails').select('id').where(sql`lower(email)`, '=', email.toLowerCase());
  if (exceptId !== undefined) further = further.where('user_id', '!=', exceptId);
  return (await further.executeTakeFirst()) !== undefined;
}

async function usernameTaken(db: Kysely<DB>, username: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('users').select('id').where(sql`lower(username)`, '=', username.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** The conflict, if any, that makes this email or username unusable. */
async function findConflict(db: Kysely<DB>, fields: { email?: string; username?: string }, exceptId?: number): Promise<string | null> {
  if (fields.email !== undefined && (await emailTaken(db, fields.email, exceptId))) return fullMessage('email', TAKEN);
  if (fields.username !== undefined && ((await usernameTaken(db, fields.username, exceptId)) || (await topLevelPathTaken(db, fields.username, exceptId)))) {
    return fullMessage('username', TAKEN);
  }
  return null;
}

/** Emails are kept trimmed and in lower case, as the platform's sign-in layer stores them. */
function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function randomPassword(): string {
  return randomBytes(24).toString('base64url');
}

function profileValues(body: Partial<CreateUserBody & UpdateUserBody>): UserUpdate {
  const out: UserUpdate = {};
  for (const key of PROFILE_TEXT) if (body[key] !== undefined) out[key] = body[key];
  if (body.note !== undefined) out.note = body.note;
  if (body.admin !== undefined) out.admin = body.admin;
  if (body.external !== undefined) out.external = body.external;
  if (body.can_create_group !== undefined) out.can_create_group = body.can_create_group;
  if (body.private_profile !== undefined) out.private_profile = body.private_profile ?? false;
  if (body.projects_limit !== undefined) out.projects_limit = body.projects_limit;
  if (body.theme_id !== undefined) out.theme_id = body.theme_id;
  if (body.color_scheme_id !== undefined) out.color_scheme_id = body.color_scheme_id;
  return out;
}

export interface CreateUserOptions {
  /** Internal accounts (bots) are created with their own type. */
  userType?: string;
  /** 'blocked_pending_approval' for a sign-up an administrator must approve; active otherwise. */
  state?: string;
}

/**
 * POST /users. Conflicts answer 409; other validation failures 400 with field messages. The actor,
 * if any, is recorded as created_by_id. A user created unconfirmed is sent the confirmation mail.
 */
export async function createUser(ctx: ServiceContext, input: CreateUserBody, options: CreateUserOptions = {}): Promise<UserRow> {
  const body = { ...input, email: normalizeEmail(input.email) };
  const random = body.reset_password || body.force_random_password;
  const password = random ? randomPassword() : body.password;
  const instance = await applicationSettings(ctx.db);
  const errors = validateUser({ ...body, password: random ? undefined : body.password }, true, instance.minimum_password_length);
  if (password === undefined) addError(errors, 'password', BLANK);
  const conflictMessage = await findConflict(ctx.db, body);
  if (conflictMessage) throw conflict(conflictMessage);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);

  const encrypted = await hashPassword(password as string, ctx.config.passwordHashCost);
  const now = ctx.now().toISOString();
  // user_default_external makes new people external, not bots.
  const external = body.external ?? ((options.userType ?? 'human') === 'human' && instance.user_default_external);
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const user = await trx
        .insertInto('users')
        .values({
          ...NEW_USER_DEFAULTS,
          projects_limit: instance.default_projects_limit,
          ...(profileValues(body) as Partial<NewUser>),
          username: body.username,
          name: body.name,
          email: body.email,
          encrypted_password: encrypted,
          user_type: options.userType ?? 'human',
          state: options.state ?? NEW_USER_DEFAULTS.state,
          // External users may not create groups or projects of their own.
          ...(external ? { external: true, can_create_group: false, projects_limit: 0 } : {}),
          confirmed_at: body.skip_confirmation ? now : null,
          created_by_id: ctx.actor?.user.id ?? null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      if (body.extern_uid !== undefined && body.provider !== undefined) {
        await trx.insertInto('identities').values({ user_id: user.id, provider: body.provider, extern_uid: body.extern_uid, created_at: now }).execute();
      }
      await createPersonalNamespace(trx, user, now);
      if (user.confirmed_at === null) await enqueue(trx, SEND_CONFIRMATION, { userId: user.id });
      return user;
    });
  } catch (error) {
    // Two creations racing for one name: the loser sees the same conflict as a later request.
    if (isUniqueViolation(error)) throw conflict((await findConflict(ctx.db, body)) ?? '409 Conflict');
    throw error;
  }
}

/** Confirms the email whose confirmation link carries this token; the user, or null for an unknown token. */
export async function confirmEmail(ctx: ServiceContext, token: string): Promise<UserRow | null> {
  const at = ctx.now().toISOString();
  const user = await ctx.db
    .updateTable('users')
    .set({ confirmed_at: at, confirmation_token: null, updated_at: at })
    .where('confirmation_token', '=', digest(token))
    .where('confirmed_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return user ?? null;
}

/**
 * PUT /users/:id. Spec Part 2 §4.2 rule 5: modification failures, conflicts included, answer 404.
 */
export async function updateUser(ctx: ServiceContext, id: number, input: UpdateUserBody): Promise<UserRow> {
  const body = input.email === undefined ? input : { ...input, email: normalizeEmail(input.email) };
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('User');
  const instance = await applicationSettings(ctx.db);
  const errors = validateUser(body, false, instance.minimum_password_length);
  for (const key of ['public_email', 'commit_email'] as const) {
    const v = body[key];
    if (v !== undefined && v !== '' && v.toLowerCase() !== (body.email ?? user.email).toLowerCase()) {
      (errors[key] ??= []).push('is not an email you own');
    }
  }
  const conflictMessage = await findConflict(ctx.db, body, id);
  if (conflictMessage) throw apiError(404, conflictMessage);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);

  const now = ctx.now().toISOString();
  const changes: UserUpdate = { ...profileValues(body), updated_at: now };
  // Becoming external takes away group and project creation; leaving it restores the defaults
  // unless this same request sets them.
  if (body.external !== undefined && body.external !== user.external) {
    if (body.external) Object.assign(changes, { can_create_group: false, projects_limit: 0 });
    else {
      changes.can_create_group ??= NEW_USER_DEFAULTS.can_create_group;
      changes.projects_limit ??= instance.default_projects_limit;
    }
  }
  if (body.name !== undefined) changes.name = body.name;
  if (body.username !== undefined) changes.username = body.username;
  if (body.email !== undefined) changes.email = body.email;
  if (body.public_email !== undefined) changes.public_email = body.public_email === '' ? null : body.public_email;
  if (body.commit_email !== undefined) changes.commit_email = body.commit_email === '' ? null : body.commit_email;
  if (body.password !== undefined) {
    changes.encrypted_password = await hashPassword(body.password, ctx.config.passwordHashCost);
    // A password an administrator sets for someone else must be changed at the next sign-in.
    if (id !== requireActor(ctx).user.id) changes.password_expires_at = now;
  }
  try {
    return await withTransaction(ctx, async ({ db: trx }) => {
      const updated = await trx.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
      if (!updated) throw notFound('User');
      if (body.extern_uid !== undefined && body.provider !== undefined) {
        await upsertIdentity(trx, id, body.provider, body.extern_uid, now);
      }
      await syncPersonalNamespace(trx, updated, now);
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw apiError(404, (await findConflict(ctx.db, body, id)) ?? '404 Not Found');
    throw error;
  }
}

async function upsertIdentity(db: Kysely<DB>, userId: number, provider: string, externUid: string, now: string): Promise<void> {
  const updated = await db
    .updateTable('identities')
    .set({ extern_uid: externUid })
    .where('user_id', '=', userId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    await db.insertInto('identities').values({ user_id: userId, provider, extern_uid: externUid, created_at: now }).execute();
  }
}

const GHOST_BIO = 'This is a "Ghost User", created to hold all issues authored by users that have since been deleted. This user cannot be removed.';

/** The platform's ghost user, made when first needed: it holds what deleted users wrote. */
export function ghostUser(ctx: ServiceContext): Promise<UserRow> {
  return internalUser(ctx, 'ghost', { username: 'ghost', name: 'Ghost User', bio: GHOST_BIO });
}

/** The alert bot, made when first needed: it logs the alerts monitoring tools send. */
export function alertBot(ctx: ServiceContext): Promise<UserRow> {
  return internalUser(ctx, 'alert_bot', { username: 'alert-bot', name: 'Alert Bot', bio: 'The alert bot' });
}

/** The internal user of this type, made when first needed under a free variant of its name. */
async function internalUser(ctx: ServiceContext, userType: (typeof INTERNAL_USER_TYPES)[number], profile: { username: string; name: string; bio: string }): Promise<UserRow> {
  const existing = () => ctx.db.selectFrom('users').selectAll().where('user_type', '=', userType).orderBy('id').executeTakeFirst();
  const found = await existing();
  if (found) return found;
  let username = profile.username;
  for (let n = 1; await ctx.db.selectFrom('users').select('id').where((eb) => eb(eb.fn('lower', ['username']), '=', username)).executeTakeFirst(); n++) username = `${profile.username}${n}`;
  const input = { username, name: profile.name, email: `${username}@example.com`, force_random_password: true, skip_confirmation: true, bio: profile.bio, projects_limit: 0, can_create_group: false };
  try {
    return await createUser(ctx, input, { userType });
  } catch (error) {
    // Another request made it first.
    const made = await existing();
    if (made) return made;
    throw error;
  }
}

/**
 * DELETE /users/:id. Tokens, sessions and identities go with the user; what the user wrote
 * (issues, comments, releases) goes to the ghost user, or, with `hard_delete`, stays without an author.
 */
export async function deleteUser(ctx: ServiceContext, id: number, options: { hardDelete?: boolean } = {}): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const user = await findUserById(tx.db, id);
    if (!user) throw notFound('User');
    if (!options.hardDelete) await handOverContributions(tx.db, id, (await ghostUser(tx)).id);
    // The user's snippets go with them, personal and project ones alike (the platform's user removal).
    await removeSnippets(tx.db, { authorId: id });
    await tx.db.deleteFrom('users').where('id', '=', id).execute();
  });
}

/** POST /users/:id/block. The platform answers true, or null when the user was already blocked. */
export async function blockUser(ctx: ServiceContext, id: number): Promise<true | null> {
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('User');
  if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be modified by the API');
  if (user.state === 'blocked') return null;
  // The block service's own message, without the "403 Forbidden - " prefix.
  if ((INTERNAL_USER_TYPES as readonly string[]).includes(user.user_type)) throw apiError(403, 'An internal user cannot be blocked');
  await ctx.db.updateTable('users').set({ state: 'blocked', updated_at: ctx.now().toISOString() }).where('id', '=', id).execute();
  return true;
}

/** POST /users/:id/unblock. True when the user was activated, false when already active. */
export async function unblockUser(ctx: ServiceContext, id: number): Promise<boolean> {
  const user = await findUserById(ctx.db, id);
  if (!user) throw notFound('User');
  if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
  if (user.state === 'deactivated') throw forbidden('Deactivated users cannot be unblocked by the API');
  if (user.state === 'active') return false;
  await ctx.db.updateTable('users').set({ state: 'active', updated_at: ctx.now().toISOString() }).where('id', '=', id).execute();
  return true;
}

/** DELETE /users/:id/identities/:provider. */
export async function deleteIdentity(ctx: ServiceContext, id: number, provider: string): Promise<void> {
  if (!(await findUserById(ctx.db, id))) throw notFound('User');
  const result = await ctx.db.deleteFrom('identities').where('user_id', '=', id).where('provider', '=', provider).executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw notFound('Identity');
}

/** The user accepts the instance's terms of service (enforce_terms); accepting once is enough, as the platform's accepted term. */
export async function acceptTerms(ctx: ServiceContext, userId: number): Promise<void> {
  const at = ctx.now().toISOString();
  await ctx.db.updateTable('users').set({ terms_accepted_at: at, updated_at: at }).where('id', '=', userId).where('terms_accepted_at', 'is', null).execute();
}

/** Days without activity after which an account is dormant (the platform's MINIMUM_INACTIVE_DAYS). */
export const DORMANT_AFTER_DAYS = 90;
/** A new account is given this many days before it can count as dormant without any activity. */
const NEW_ACCOUNT_GRACE_DAYS = 7;

/**
 * deactivate_dormant_users (a daily task): with the setting on, active people whose last activity
 * (or, never active, whose last sign-in) is DORMANT_AFTER_DAYS old are deactivated; signing in on
 * the web reactivates them. Bots and other internal accounts are left alone. Returns how many.
 */
export async function deactivateDormantUsers(ctx: ServiceContext): Promise<number> {
  if (!(await applicationSettings(ctx.db)).deactivate_dormant_users) return 0;
  const now = ctx.now();
  const cutoff = new Date(now.getTime() - DORMANT_AFTER_DAYS * 86_400_000).toISOString();
  const newCutoff = new Date(now.getTime() - NEW_ACCOUNT_GRACE_DAYS * 86_400_000).toISOString();
  const result = await ctx.db
    .updateTable('users')
    .set({ state: 'deactivated', updated_at: now.toISOString() })
    .where('state', '=', 'active')
    .where('user_type', '=', 'human')
    .where((eb) =>
      eb.or([
        eb('last_activity_on', '<=', cutoff.slice(0, 10)),
        eb.and([
          eb('last_activity_on', 'is', null),
          eb('created_at', '<=', newCutoff),
          eb.or([eb('current_sign_in_at', 'is', null), eb('current_sign_in_at', '<=', cutoff)]),
        ]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
