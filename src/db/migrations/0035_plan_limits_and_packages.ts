// Plan limits and the package registry. Each plan has one row of limits (byte sizes per package
// type), every plan seeded with the platform's defaults; packages belong to a project, and each
// of their files is stored under the packages storage (a path relative to it), with its checksums
// and the pipeline of the job that published it, when a job did.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

/** The plans of the enterprise-shaped API; the community edition has only `default`. */
const PLANS = ['default', 'free', 'bronze', 'silver', 'premium', 'gold', 'ultimate', 'ultimate_trial', 'premium_trial'];

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;
const LIMITS: Record<string, number> = {
  conan_max_file_size: 3 * GIB,
  generic_packages_max_file_size: 5 * GIB,
  helm_max_file_size: 5 * MIB,
  maven_max_file_size: 3 * GIB,
  npm_max_file_size: 500 * MIB,
  nuget_max_file_size: 500 * MIB,
  pypi_max_file_size: 3 * GIB,
  terraform_module_max_file_size: GIB,
};

export async function up(db: Kysely<any>): Promise<void> {
  let table = db.schema
    .createTable('plan_limits')
    .addColumn('plan_name', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('updated_at', 'varchar(32)', notNull);
  for (const [column, value] of Object.entries(LIMITS)) table = table.addColumn(column, 'bigint', (c) => c.notNull().defaultTo(value));
  await table.execute();
  const now = new Date().toISOString();
  await db.insertInto('plan_limits').values(PLANS.map((plan_name) => ({ plan_name, updated_at: now }))).execute();

  await withId(db, db.schema.createTable('packages'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('version', 'varchar(255)')
    .addColumn('package_type', 'varchar(32)', notNull)
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('default'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('packages_project_type_name_version').on('packages').columns(['project_id', 'package_type', 'name', 'version']).execute();

  await withId(db, db.schema.createTable('package_files'))
    .addColumn('package_id', 'bigint', (c) => c.notNull().references('packages.id').onDelete('cascade'))
    .addColumn('file_name', 'varchar(255)', notNull)
    .addColumn('size', 'bigint', notNull)
    .addColumn('file_md5', 'varchar(32)', notNull)
    .addColumn('file_sha1', 'varchar(40)', notNull)
    .addColumn('file_sha256', 'varchar(64)', notNull)
    .addColumn('file_path', 'varchar(512)', notNull)
    .addColumn('pipeline_id', 'bigint', (c) => c.references('ci_pipelines.id').onDelete('set null'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('package_files_package_name').on('package_files').columns(['package_id', 'file_name', 'id']).execute();
  await db.schema.createIndex('package_files_pipeline').on('package_files').column('pipeline_id').execute();
}
