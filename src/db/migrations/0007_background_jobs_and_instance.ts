// The durable queue of background work (jobs/queue.ts) and the instance's identity, which the data
// directory must match so that two databases never share one set of repositories.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  // state: 'queued' (waiting for run_at), 'running' (claimed; run_at is when the claim expires),
  // 'failed' (out of attempts, kept for operators). A job that succeeds is deleted.
  await withId(db, db.schema.createTable('background_jobs'))
    .addColumn('kind', 'varchar(100)', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('state', 'varchar(16)', notNull)
    .addColumn('run_at', 'varchar(32)', notNull)
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', notNull)
    .addColumn('locked_by', 'varchar(128)')
    .addColumn('last_error', 'text')
    .addColumn('dedupe_key', 'varchar(255)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('background_jobs_due').on('background_jobs').columns(['state', 'run_at', 'id']).execute();
  // At most one waiting job per kind and key: enqueueing it again while it waits is a no-op. A
  // claim clears the key, so that the next change enqueues a job of its own.
  await db.schema.createIndex('background_jobs_dedupe').on('background_jobs').columns(['kind', 'dedupe_key']).unique().execute();

  await db.schema
    .createTable('instance_identity')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('instance_id', 'varchar(64)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
}
