// A merge request being rebased by a background job (the platform's rebase_jid): set with the
// job's enqueueing, cleared when the job ends either way.
import type { Kysely } from 'kysely';
import { falseByDefault } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('merge_requests').addColumn('rebase_in_progress', 'boolean', falseByDefault).execute();
}
