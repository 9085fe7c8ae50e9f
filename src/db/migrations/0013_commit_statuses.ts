// Commit statuses from external systems: they are jobs of a pipeline (ci_builds, type 'generic')
// with a link and a description of their own. A commit's statuses and its latest pipeline are
// found by sha, which ci_pipelines is now indexed by.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ci_builds').addColumn('target_url', 'text').execute();
  await db.schema.alterTable('ci_builds').addColumn('description', 'text').execute();
  await db.schema.createIndex('ci_pipelines_project_sha').on('ci_pipelines').columns(['project_id', 'sha', 'id']).execute();
}
