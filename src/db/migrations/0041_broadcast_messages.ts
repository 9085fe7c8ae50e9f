// Broadcast messages: an instance-wide notice between two times, for some roles or paths.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('broadcast_messages'))
    .addColumn('message', 'text', notNull)
    .addColumn('starts_at', 'varchar(32)', notNull)
    .addColumn('ends_at', 'varchar(32)', notNull)
    .addColumn('color', 'varchar(255)')
    .addColumn('font', 'varchar(255)')
    /** JSON array of access levels; empty for everyone. */
    .addColumn('target_access_levels', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('target_path', 'text')
    .addColumn('broadcast_type', 'varchar(16)', notNull)
    .addColumn('dismissable', 'boolean')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
}
