// Web sessions: a sign-in with login and password sets the _service_session cookie, which the API
// accepts for reads, and for writes together with the session's CSRF token. Signing in also
// reactivates a deactivated account, as on the platform.
import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB, UserRow } from '../../db/schema.ts';
import { digest } from '../../core/auth/secrets.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';

/** A session lasts the instance's session_expire_delay (minutes). */
export async function startSession(db: Kysely<DB>, user: UserRow, ip: string, now: Date): Promise<{ cookie: string; csrfToken: string; lifetimeSeconds: number }> {
  const lifetimeSeconds = (await applicationSettings(db)).session_expire_delay * 60;
  const cookie = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const at = now.toISOString();
  await db.transaction().execute(async (trx) => {
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

export async function findSession(db: Kysely<DB>, cookie: string | undefined, now: Date) {
  if (!cookie) return undefined;
  return db
    .selectFrom('web_sessions')
    .innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['web_sessions.id', 'web_sessions.csrf_token', 'users.username'])
    .where('web_sessions.session_digest', '=', digest(cookie))
    .where('web_sessions.expires_at', '>', now.toISOString())
    .executeTakeFirst();
}

export async function endSession(db: Kysely<DB>, cookie: string | undefined): Promise<void> {
  if (cookie) await db.deleteFrom('web_sessions').where('session_digest', '=', digest(cookie)).execute();
}
