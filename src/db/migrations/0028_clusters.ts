// Kubernetes clusters attached to a project (added as existing clusters), with their platform's
// connection: the API address, its CA certificate, the namespace, and the service token, kept
// encrypted with the instance's key. A management project is one of the project's namespace.
import { type Kysely, sql } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('clusters'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('domain', 'varchar(255)')
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(sql`true`))
    .addColumn('managed', 'boolean', (c) => c.notNull().defaultTo(sql`true`))
    .addColumn('provider_type', 'varchar(16)', (c) => c.notNull().defaultTo('user'))
    .addColumn('environment_scope', 'varchar(255)', (c) => c.notNull().defaultTo('*'))
    .addColumn('management_project_id', 'bigint', (c) => c.references('projects.id').onDelete('set null'))
    .addColumn('api_url', 'text', notNull)
    .addColumn('ca_cert', 'text')
    .addColumn('namespace', 'varchar(63)')
    .addColumn('authorization_type', 'varchar(32)', (c) => c.notNull().defaultTo('rbac'))
    .addColumn('token_encrypted', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('clusters_project_scope').on('clusters').columns(['project_id', 'environment_scope']).unique().execute();
  await db.schema.createIndex('clusters_project_id').on('clusters').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('clusters_management_project_scope').on('clusters').columns(['management_project_id', 'environment_scope']).execute();
  await db.schema.createIndex('clusters_user').on('clusters').column('user_id').execute();
}
