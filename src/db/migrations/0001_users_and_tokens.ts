import { type Kysely, sql } from 'kysely';
import { emptyByDefault, falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('username', 'varchar(255)', notNull)
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('email', 'varchar(255)', notNull)
    .addColumn('encrypted_password', 'text')
    .addColumn('state', 'varchar(32)', (c) => c.notNull().defaultTo('active'))
    .addColumn('admin', 'boolean', falseByDefault)
    .addColumn('external', 'boolean', falseByDefault)
    .addColumn('user_type', 'varchar(32)', (c) => c.notNull().defaultTo('human'))
    .addColumn('bio', 'text', emptyByDefault)
    .addColumn('location', 'text', emptyByDefault)
    .addColumn('public_email', 'varchar(255)')
    .addColumn('commit_email', 'varchar(255)')
    .addColumn('skype', 'text', emptyByDefault)
    .addColumn('linkedin', 'text', emptyByDefault)
    .addColumn('twitter', 'text', emptyByDefault)
    .addColumn('website_url', 'text', emptyByDefault)
    .addColumn('organization', 'text', emptyByDefault)
    .addColumn('job_title', 'text', emptyByDefault)
    .addColumn('note', 'text')
    .addColumn('private_profile', 'boolean', falseByDefault)
    .addColumn('projects_limit', 'integer', (c) => c.notNull().defaultTo(100000))
    .addColumn('can_create_group', 'boolean', (c) => c.notNull().defaultTo(sql`true`))
    .addColumn('theme_id', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('color_scheme_id', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('two_factor_enabled', 'boolean', falseByDefault)
    .addColumn('confirmed_at', 'varchar(32)')
    .addColumn('password_expires_at', 'varchar(32)')
    .addColumn('last_sign_in_at', 'varchar(32)')
    .addColumn('current_sign_in_at', 'varchar(32)')
    .addColumn('last_sign_in_ip', 'varchar(64)')
    .addColumn('current_sign_in_ip', 'varchar(64)')
    .addColumn('sign_in_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_activity_on', 'varchar(10)')
    .addColumn('created_by_id', 'bigint')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  // Usernames and emails are unique regardless of case.
  await sql`create unique index users_lower_username on users (lower(username))`.execute(db);
  await sql`create unique index users_lower_email on users (lower(email))`.execute(db);
  await sql`create index users_lower_name on users (lower(name))`.execute(db);
  await db.schema.createIndex('users_state').on('users').columns(['state', 'id']).execute();
  // Lists for non-administrators leave external users out.
  await db.schema.createIndex('users_external').on('users').columns(['external', 'id']).execute();
  await db.schema.createIndex('users_created_at').on('users').columns(['created_at', 'id']).execute();

  await withId(db, db.schema.createTable('identities'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'varchar(255)', notNull)
    .addColumn('extern_uid', 'varchar(255)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('identities_user_provider').unique().on('identities').columns(['user_id', 'provider']).execute();
  await db.schema.createIndex('identities_provider_uid').on('identities').columns(['provider', 'extern_uid']).execute();

  await withId(db, db.schema.createTable('user_custom_attributes'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'varchar(255)', notNull)
    .addColumn('value', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('user_custom_attributes_key').unique().on('user_custom_attributes').columns(['user_id', 'key']).execute();

  await withId(db, db.schema.createTable('personal_access_tokens'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('token_digest', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', notNull)
    .addColumn('impersonation', 'boolean', falseByDefault)
    .addColumn('revoked', 'boolean', falseByDefault)
    .addColumn('expires_at', 'varchar(10)')
    .addColumn('last_used_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('personal_access_tokens_user').on('personal_access_tokens').columns(['user_id', 'id']).execute();

  await withId(db, db.schema.createTable('oauth_access_tokens'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_digest', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('refresh_token_digest', 'varchar(64)', (c) => c.unique())
    .addColumn('scopes', 'text', notNull)
    .addColumn('expires_in', 'integer')
    .addColumn('revoked_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();

  await withId(db, db.schema.createTable('web_sessions'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('session_digest', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('csrf_token', 'varchar(128)', notNull)
    .addColumn('expires_at', 'varchar(32)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
}
