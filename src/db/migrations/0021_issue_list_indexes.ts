// The issue lists in their default order (created_at, then id): a project's issues, and a project's
// issues in one state, walked newest first from an index, so that a page reads its 20 rows (and
// the rows its filters skip) instead of sorting every issue of the project.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('issues_project_state_created').on('issues').columns(['project_id', 'state', 'created_at', 'id']).execute();
  await db.schema.createIndex('issues_project_created').on('issues').columns(['project_id', 'created_at', 'id']).execute();
}
