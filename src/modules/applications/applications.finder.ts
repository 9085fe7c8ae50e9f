// Reading OAuth applications: the instance-wide ones administrators manage (those no user owns,
// as the platform's ApplicationsFinder reads them), a user's own, the ones a user gave access to,
// and the application an OAuth client names.
import type { Kysely } from 'kysely';
import type { DB, OauthApplicationRow } from '../../db/schema.ts';

/** Every instance-wide application, oldest first: the platform's list is not paginated (there are few). */
export function listApplications(db: Kysely<DB>): Promise<OauthApplicationRow[]> {
  return db.selectFrom('oauth_applications').selectAll().where('owner_id', 'is', null).orderBy('id').execute();
}

/** The applications a user registered, newest first. */
export function userApplications(db: Kysely<DB>, userId: number): Promise<OauthApplicationRow[]> {
  return db.selectFrom('oauth_applications').selectAll().where('owner_id', '=', userId).where('owner_type', '=', 'User').orderBy('id', 'desc').execute();
}

export async function findUserApplication(db: Kysely<DB>, userId: number, id: number): Promise<OauthApplicationRow | null> {
  return (await db.selectFrom('oauth_applications').selectAll().where('id', '=', id).where('owner_id', '=', userId).where('owner_type', '=', 'User').executeTakeFirst()) ?? null;
}

/** The applications holding a token of the user that is not revoked (whoever owns them). */
export function authorizedApplications(db: Kysely<DB>, userId: number): Promise<Pick<OauthApplicationRow, 'id' | 'name'>[]> {
  return db
    .selectFrom('oauth_applications')
    .select(['oauth_applications.id', 'oauth_applications.name'])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('oauth_access_tokens')
          .select('oauth_access_tokens.id')
          .whereRef('oauth_access_tokens.application_id', '=', 'oauth_applications.id')
          .where('oauth_access_tokens.user_id', '=', userId)
          .where('oauth_access_tokens.revoked_at', 'is', null),
      ),
    )
    .orderBy('oauth_applications.name')
    .orderBy('oauth_applications.id')
    .execute();
}

export function findApplicationByUid(db: Kysely<DB>, uid: string): Promise<OauthApplicationRow | undefined> {
  return db.selectFrom('oauth_applications').selectAll().where('uid', '=', uid).executeTakeFirst();
}
