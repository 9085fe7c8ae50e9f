// The jobs list filtered by `scope` (statuses): its rows as one index range per status, so that
// the list's X-Total (counted up to 10,001 rows) is read from the index alone.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('ci_builds_project_type_retried_status').on('ci_builds').columns(['project_id', 'type', 'retried', 'status', 'id']).execute();
}
