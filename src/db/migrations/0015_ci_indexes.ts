// Indexes for the filters of a project's pipelines list (14.x PipelinesFinder: status, source, ref,
// sha, username, updated_after/updated_before, and their combinations). Each common filter, alone or
// with a status, finds its rows as one index range in id order, so that a page is the first entries
// of that range and its X-Total (counted up to 10,001 rows) is read from the index alone. The same
// indexes serve the list's other orders (order_by=user_id, updated_at). The `sha` filter reads the
// (project, sha, id) index of the commit statuses' migration.
//
// PostgreSQL also keeps the joint frequencies of statuses and sources: taking them as independent,
// it would expect rows of a pair that has none (no successful API pipeline, say) among the newest
// pipelines, and walk the project's whole history looking for them instead of reading the pair's
// empty range.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './helpers.ts';

const INDEXES: [string, string[]][] = [
  ['ci_pipelines_project_ref_status', ['project_id', 'ref', 'status', 'id']],
  ['ci_pipelines_project_source_status', ['project_id', 'source', 'status', 'id']],
  ['ci_pipelines_project_user', ['project_id', 'user_id', 'id']],
  ['ci_pipelines_project_updated', ['project_id', 'updated_at', 'id']],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of INDEXES) await db.schema.createIndex(name).on('ci_pipelines').columns(columns).execute();
  if (isPostgres(db)) await sql`create statistics ci_pipelines_status_source (mcv) on status, source from ci_pipelines`.execute(db);
}
