// The actor's authorized projects at one visibility level, read from the index alone: deep pages of
// a projects list collect them once as a set (core/access/visibility), which then needs no lookup
// in the table for each authorization.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('project_authorizations_user_visibility').execute();
  await db.schema.createIndex('project_authorizations_user_visibility').on('project_authorizations').columns(['user_id', 'visibility_level', 'project_id']).execute();
}
