// OAuth applications (the Applications API) and the authorization-code flow: an application's
// secret is kept as a digest, shown once when it is made; a grant is a short-lived code a signed-in
// user gives an application, exchanged once for a token that names the application.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('oauth_applications'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('uid', 'varchar(64)', notNull)
    .addColumn('secret_digest', 'varchar(64)', notNull)
    /** One or more redirect URIs, one per line. */
    .addColumn('redirect_uri', 'text', notNull)
    /** Space-separated scope names. */
    .addColumn('scopes', 'text', notNull)
    .addColumn('confidential', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('trusted', 'boolean', falseByDefault)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('oauth_applications_uid').on('oauth_applications').column('uid').unique().execute();

  await withId(db, db.schema.createTable('oauth_access_grants'))
    .addColumn('application_id', 'bigint', (c) => c.notNull().references('oauth_applications.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_digest', 'varchar(64)', notNull)
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('code_challenge', 'varchar(128)')
    .addColumn('code_challenge_method', 'varchar(16)')
    .addColumn('expires_in', 'integer', notNull)
    .addColumn('revoked_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('oauth_access_grants_code').on('oauth_access_grants').column('code_digest').unique().execute();

  await db.schema.alterTable('oauth_access_tokens').addColumn('application_id', 'bigint', (c) => c.references('oauth_applications.id').onDelete('cascade')).execute();
  await db.schema.createIndex('oauth_access_tokens_application').on('oauth_access_tokens').columns(['application_id', 'user_id']).execute();
}
