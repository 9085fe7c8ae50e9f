// Pushes under way, one row each, so that a storage move on any node sharing the database waits
// for them (the platform's reference counter of a repository's writers, kept in Redis). A row is
// a lease: its node renews it while the push runs and removes it at the end; one whose node died
// expires and counts no more.
import type { Kysely } from 'kysely';
import { withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('push_leases'))
    .addColumn('repository', 'text', (c) => c.notNull())
    .addColumn('node', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('push_leases_repository').on('push_leases').columns(['repository', 'expires_at']).execute();
  await db.schema.createIndex('push_leases_expires_at').on('push_leases').column('expires_at').execute();
}
