// Deploy tokens: a project's or a group's credential for git over HTTP (and, by scope, registries),
// kept as a digest like every token. Scopes are columns, as on the platform; the token goes with
// its project or group.
import type { Kysely } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('deploy_tokens'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('username', 'varchar(255)')
    .addColumn('token_digest', 'varchar(64)', notNull)
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('creator_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('read_repository', 'boolean', falseByDefault)
    .addColumn('read_registry', 'boolean', falseByDefault)
    .addColumn('write_registry', 'boolean', falseByDefault)
    .addColumn('read_package_registry', 'boolean', falseByDefault)
    .addColumn('write_package_registry', 'boolean', falseByDefault)
    .addColumn('revoked', 'boolean', falseByDefault)
    .addColumn('expires_at', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('deploy_tokens_token_digest').on('deploy_tokens').column('token_digest').unique().execute();
  await db.schema.createIndex('deploy_tokens_project').on('deploy_tokens').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('deploy_tokens_group').on('deploy_tokens').columns(['group_id', 'id']).execute();
}
