// Deploy keys on protected branches: a push access level may name a deploy key instead of a role,
// letting that key push to the branch. Removing the key removes the level.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('protected_branch_access_levels')
    .addColumn('deploy_key_id', 'bigint', (c) => c.references('keys.id').onDelete('cascade'))
    .execute();
}
