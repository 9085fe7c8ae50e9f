// SSH keys: users' keys and deploy keys share one table, as on the platform, so that one public key
// is one row system-wide (unique fingerprints). A user key belongs to its user and goes with them;
// a deploy key keeps who added it (forgotten when that user goes) and is joined to projects, each
// join saying whether the key may push there.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('keys'))
    .addColumn('type', 'varchar(16)', notNull)
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('creator_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('title', 'varchar(255)', notNull)
    .addColumn('key', 'text', notNull)
    .addColumn('fingerprint', 'varchar(64)', notNull)
    .addColumn('fingerprint_sha256', 'varchar(64)', notNull)
    .addColumn('public', 'boolean', falseByDefault)
    .addColumn('expires_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('keys_fingerprint').on('keys').column('fingerprint').unique().execute();
  await db.schema.createIndex('keys_fingerprint_sha256').on('keys').column('fingerprint_sha256').unique().execute();
  await db.schema.createIndex('keys_user').on('keys').columns(['user_id', 'id']).execute();
  await db.schema.createIndex('keys_type').on('keys').columns(['type', 'id']).execute();
  await db.schema.createIndex('keys_creator').on('keys').column('creator_id').execute();

  await withId(db, db.schema.createTable('deploy_keys_projects'))
    .addColumn('deploy_key_id', 'bigint', (c) => c.notNull().references('keys.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('can_push', 'boolean', falseByDefault)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('deploy_keys_projects_key_project').on('deploy_keys_projects').columns(['deploy_key_id', 'project_id']).unique().execute();
  await db.schema.createIndex('deploy_keys_projects_project').on('deploy_keys_projects').columns(['project_id', 'id']).execute();
}
