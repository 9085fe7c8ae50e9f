// A user's profile beyond the users row: the status they show (emoji, message, availability, an
// optional time it clears at), their further email addresses, their GPG keys with the keys' subkeys,
// and the verdicts of GPG-signed commits (kept once computed, as the platform keeps them, so that a
// revoked key can turn its verified commits unverified while a deleted one leaves them be).
import { type Kysely, sql } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('user_statuses')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('emoji', 'varchar(255)', (c) => c.notNull().defaultTo('speech_balloon'))
    .addColumn('message', 'varchar(255)')
    .addColumn('availability', 'varchar(16)', (c) => c.notNull().defaultTo('not_set'))
    .addColumn('clear_status_at', 'varchar(32)')
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('user_statuses_clear_status_at').on('user_statuses').column('clear_status_at').execute();

  await withId(db, db.schema.createTable('emails'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'varchar(255)', notNull)
    .addColumn('confirmed_at', 'varchar(32)')
    .addColumn('confirmation_token', 'varchar(64)')
    .addColumn('confirmation_sent_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  // Addresses are unique regardless of case, as the users' own are.
  await db.schema.createIndex('emails_email').on('emails').expression(sql`lower(email)`).unique().execute();
  await db.schema.createIndex('emails_user').on('emails').columns(['user_id', 'id']).execute();

  await withId(db, db.schema.createTable('gpg_keys'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'text', notNull)
    .addColumn('primary_keyid', 'varchar(16)', notNull)
    .addColumn('fingerprint', 'varchar(64)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('gpg_keys_fingerprint').on('gpg_keys').column('fingerprint').unique().execute();
  await db.schema.createIndex('gpg_keys_primary_keyid').on('gpg_keys').column('primary_keyid').unique().execute();
  await db.schema.createIndex('gpg_keys_user').on('gpg_keys').columns(['user_id', 'id']).execute();

  await withId(db, db.schema.createTable('gpg_key_subkeys'))
    .addColumn('gpg_key_id', 'bigint', (c) => c.notNull().references('gpg_keys.id').onDelete('cascade'))
    .addColumn('keyid', 'varchar(16)', notNull)
    .addColumn('fingerprint', 'varchar(64)', notNull)
    .execute();
  await db.schema.createIndex('gpg_key_subkeys_fingerprint').on('gpg_key_subkeys').column('fingerprint').unique().execute();
  await db.schema.createIndex('gpg_key_subkeys_keyid').on('gpg_key_subkeys').column('keyid').unique().execute();
  await db.schema.createIndex('gpg_key_subkeys_key').on('gpg_key_subkeys').column('gpg_key_id').execute();

  await withId(db, db.schema.createTable('gpg_signatures'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('commit_sha', 'varchar(64)', notNull)
    .addColumn('gpg_key_id', 'bigint', (c) => c.references('gpg_keys.id').onDelete('set null'))
    .addColumn('gpg_key_subkey_id', 'bigint', (c) => c.references('gpg_key_subkeys.id').onDelete('set null'))
    .addColumn('gpg_key_primary_keyid', 'varchar(64)')
    .addColumn('gpg_key_user_name', 'text')
    .addColumn('gpg_key_user_email', 'text')
    .addColumn('verification_status', 'varchar(32)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('gpg_signatures_commit').on('gpg_signatures').columns(['project_id', 'commit_sha']).unique().execute();
  await db.schema.createIndex('gpg_signatures_keyid').on('gpg_signatures').column('gpg_key_primary_keyid').execute();
  await db.schema.createIndex('gpg_signatures_key').on('gpg_signatures').column('gpg_key_id').execute();
  await db.schema.createIndex('gpg_signatures_subkey').on('gpg_signatures').column('gpg_key_subkey_id').execute();
}
