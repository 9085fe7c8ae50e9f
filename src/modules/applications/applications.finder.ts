// Reading OAuth applications: the admin list, and the application an OAuth client names.
import type { Kysely } from 'kysely';
import type { DB, OauthApplicationRow } from '../../db/schema.ts';

/** Every application, oldest first: the platform's list is not paginated (there are few). */
export function listApplications(db: Kysely<DB>): Promise<OauthApplicationRow[]> {
  return db.selectFrom('oauth_applications').selectAll().orderBy('id').execute();
}

export function findApplicationByUid(db: Kysely<DB>, uid: string): Promise<OauthApplicationRow | undefined> {
  return db.selectFrom('oauth_applications').selectAll().where('uid', '=', uid).executeTakeFirst();
}
