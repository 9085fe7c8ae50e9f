// Events found by what they are about: a milestone's when it is deleted (they lose their target),
// and the closing and reopening of a milestone's issues for its burndown chart.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('events_target').on('events').columns(['target_type', 'target_id']).execute();
}
