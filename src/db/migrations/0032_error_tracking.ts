// Error tracking: a project's settings (an external tracker's address and token, or the integrated
// tracker), the client keys its SDKs send events with, and the integrated tracker's data: errors,
// each the group of the events that share an exception type, value, culprit and platform (found by
// the fingerprint of those four, unique per project), with their counts and first and last times.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('error_tracking_settings'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('enabled', 'boolean', falseByDefault)
    .addColumn('integrated', 'boolean', falseByDefault)
    .addColumn('api_url', 'varchar(255)')
    .addColumn('project_name', 'varchar(255)')
    .addColumn('token_encrypted', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('error_tracking_settings_project').on('error_tracking_settings').column('project_id').unique().execute();

  await withId(db, db.schema.createTable('error_tracking_client_keys'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('public_key', 'varchar(255)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('error_tracking_client_keys_public_key').on('error_tracking_client_keys').column('public_key').unique().execute();
  await db.schema.createIndex('error_tracking_client_keys_project').on('error_tracking_client_keys').columns(['project_id', 'id']).execute();

  await withId(db, db.schema.createTable('error_tracking_errors'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('fingerprint', 'varchar(64)', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('description', 'text', notNull)
    .addColumn('actor', 'text', notNull)
    .addColumn('platform', 'varchar(255)', notNull)
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('unresolved'))
    .addColumn('events_count', 'bigint', notNull)
    .addColumn('first_seen_at', 'varchar(32)', notNull)
    .addColumn('last_seen_at', 'varchar(32)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('error_tracking_errors_fingerprint').on('error_tracking_errors').columns(['project_id', 'fingerprint']).unique().execute();
  await db.schema.createIndex('error_tracking_errors_last_seen').on('error_tracking_errors').columns(['project_id', 'last_seen_at', 'id']).execute();
  await db.schema.createIndex('error_tracking_errors_first_seen').on('error_tracking_errors').columns(['project_id', 'first_seen_at', 'id']).execute();
  await db.schema.createIndex('error_tracking_errors_frequency').on('error_tracking_errors').columns(['project_id', 'events_count', 'id']).execute();

  await withId(db, db.schema.createTable('error_tracking_error_events'))
    .addColumn('error_id', 'bigint', (c) => c.notNull().references('error_tracking_errors.id').onDelete('cascade'))
    .addColumn('description', 'text', notNull)
    .addColumn('environment', 'varchar(255)')
    .addColumn('level', 'varchar(255)')
    .addColumn('occurred_at', 'varchar(32)', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('error_tracking_error_events_error').on('error_tracking_error_events').columns(['error_id', 'occurred_at', 'id']).execute();
}
