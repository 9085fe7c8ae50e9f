// Pages: a project's custom domains (with their certificate and its private key, the key sealed
// with the instance's key, and their DNS verification), unique across the instance whatever
// their case; and the sites published from `pages` jobs, each a directory of files in the
// artifacts storage, the newest of a project being the one served.
import { type Kysely, sql } from 'kysely';
import { falseByDefault, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('pages_domains'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('domain', 'varchar(255)', notNull)
    .addColumn('certificate', 'text')
    .addColumn('key_encrypted', 'text')
    .addColumn('certificate_source', 'varchar(16)', (c) => c.notNull().defaultTo('user_provided'))
    .addColumn('certificate_valid_not_before', 'varchar(32)')
    .addColumn('certificate_valid_not_after', 'varchar(32)')
    .addColumn('auto_ssl_enabled', 'boolean', falseByDefault)
    .addColumn('verification_code', 'varchar(32)', notNull)
    .addColumn('verified_at', 'varchar(32)')
    .addColumn('enabled_until', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await sql`create unique index pages_domains_lower_domain on pages_domains (lower(domain))`.execute(db);
  await db.schema.createIndex('pages_domains_project_domain').on('pages_domains').columns(['project_id', 'domain']).execute();

  await withId(db, db.schema.createTable('pages_deployments'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('ci_build_id', 'bigint', (c) => c.references('ci_builds.id').onDelete('set null'))
    .addColumn('sha', 'varchar(64)', notNull)
    .addColumn('ref', 'varchar(255)', notNull)
    .addColumn('directory', 'varchar(255)', notNull)
    .addColumn('file_count', 'integer', notNull)
    .addColumn('size', 'bigint', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('pages_deployments_project').on('pages_deployments').columns(['project_id', 'id']).execute();
  await db.schema.createIndex('pages_deployments_build').on('pages_deployments').column('ci_build_id').execute();
}
