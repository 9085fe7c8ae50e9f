// Web sessions: a sign-in with login and password sets the _service_session cookie, which the API
// accepts for reads, and for writes together with the session's CSRF token. Signing in also
// reactivates a deactivated account, as on the platform.
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { UserRow } from '../../db/schema.ts';
import { digest, safeEqual } from '../../core/auth/secrets.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';

/**
 * A session lasts the instance's session_expire_delay (minutes). `user` signs in: the request has no
 * actor yet.
 */
export async function startSession(ctx: ServiceContext, user: UserRow, ip: string): Promise<{ cookie: string; csrfToken: string; lifetimeSeconds: number }> {
  const lifetimeSeconds = (await applicationSettings(ctx.db)).session_expire_delay * 60;
  const cookie = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const now = ctx.now();
  const at = now.toISOString();
  await withTransaction(ctx, async ({ db: trx }) => {
    await trx
      .insertInto('web_sessions')
      .values({ user_id: user.id, session_digest: digest(cookie), csrf_token: csrfToken, expires_at: new Date(now.getTime() + lifetimeSeconds * 1000).toISOString(), created_at: at })
      .execute();
    await trx
      .updateTable('users')
      .set({
        state: 'active',
        sign_in_count: sql<number>`sign_in_count + 1`,
        last_sign_in_at: user.current_sign_in_at ?? at,
        last_sign_in_ip: user.current_sign_in_ip ?? ip,
        current_sign_in_at: at,
        current_sign_in_ip: ip,
      })
      .where('id', '=', user.id)
      .execute();
  });
  return { cookie, csrfToken, lifetimeSeconds };
}

export async function findSession(ctx: ServiceContext, cookie: string | undefined) {
  if (!cookie) return undefined;
  return ctx.db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['web_sessions.id', 'web_sessions.csrf_token', 'web_sessions.user_id', 'users.username', 'users.admin'])
    .where('web_sessions.session_digest', '=', digest(cookie))
    .where('web_sessions.expires_at', '>', ctx.now().toISOString())
    .executeTakeFirst();
}

/**
 * The signed-in session of a web form post that carries the session's CSRF token (as the form's
 * `authenticity_token` or an X-CSRF-Token header); undefined otherwise.
 */
export async function findPostingSession(ctx: ServiceContext, cookie: string | undefined, csrfToken: unknown) {
  const session = await findSession(ctx, cookie);
  return session && typeof csrfToken === 'string' && safeEqual(csrfToken, session.csrf_token) ? session : undefined;
}

export async function endSession(ctx: ServiceContext, cookie: string | undefined): Promise<void> {
  if (cookie) await ctx.db.deleteFrom('web_sessions').where('session_digest', '=', digest(cookie)).execute();
}

/** How long admin mode lasts once entered (the platform's MAX_ADMIN_MODE_TIME). */
export const ADMIN_MODE_SECONDS = 6 * 60 * 60;

/** Starts admin mode for a session (its administrator gave the password again). */
export async function enterAdminMode(ctx: ServiceContext, sessionId: number): Promise<void> {
  const until = new Date(ctx.now().getTime() + ADMIN_MODE_SECONDS * 1000).toISOString();
  await ctx.db.updateTable('web_sessions').set({ admin_mode_until: until }).where('id', '=', sessionId).execute();
}

export async function leaveAdminMode(ctx: ServiceContext, sessionId: number): Promise<void> {
  await ctx.db.updateTable('web_sessions').set({ admin_mode_until: null }).where('id', '=', sessionId).execute();
}
