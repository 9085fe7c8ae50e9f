// Who owns an OAuth application: a user who registered it on their applications page, or no one
// (an instance-wide application an administrator registered). The owner is polymorphic on the
// platform (owner_type); users are the only owners here, so the key follows the user, whose
// applications go with them.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('oauth_applications').addColumn('owner_id', 'bigint', (c) => c.references('users.id').onDelete('cascade')).execute();
  await db.schema.alterTable('oauth_applications').addColumn('owner_type', 'varchar(32)').execute();
  await db.schema.createIndex('oauth_applications_owner').on('oauth_applications').columns(['owner_id', 'owner_type']).execute();
}
