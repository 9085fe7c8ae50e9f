// Merge request pipelines and automatic merges: a pipeline made for a merge request
// (`merge_request_event`) names it, and a merge request set to merge when its pipeline succeeds
// keeps who asked and the parameters of the merge they asked for.
import type { Kysely } from 'kysely';
import { falseByDefault } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('ci_pipelines').addColumn('merge_request_id', 'bigint', (c) => c.references('merge_requests.id').onDelete('set null')).execute();
  await db.schema.createIndex('ci_pipelines_merge_request').on('ci_pipelines').columns(['merge_request_id', 'id']).execute();
  await db.schema.alterTable('merge_requests').addColumn('merge_when_pipeline_succeeds', 'boolean', falseByDefault).execute();
  await db.schema.alterTable('merge_requests').addColumn('merge_user_id', 'bigint', (c) => c.references('users.id').onDelete('set null')).execute();
  await db.schema.alterTable('merge_requests').addColumn('merge_params', 'text').execute();
}
