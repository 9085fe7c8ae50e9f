// Project and group export and import: the export of each project or group (its job's state and
// the archive it produced, kept in the exports storage), the import state of a project or group
// made from an archive (scheduled, started, finished or failed, with the error and the archive
// waiting to be read), and the records that failed to import while the rest went in.
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('project_exports'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().unique().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', 'varchar(16)', notNull)
    .addColumn('description', 'text')
    .addColumn('upload_url', 'text')
    .addColumn('upload_method', 'varchar(8)')
    .addColumn('file_path', 'varchar(255)')
    .addColumn('file_name', 'varchar(255)')
    .addColumn('file_size', 'bigint')
    .addColumn('exported_at', 'varchar(32)')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();

  await db.schema
    .createTable('project_import_states')
    .addColumn('project_id', 'bigint', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', 'varchar(16)', notNull)
    .addColumn('import_type', 'varchar(32)', notNull)
    .addColumn('correlation_id', 'varchar(64)', notNull)
    .addColumn('last_error', 'text')
    .addColumn('file_path', 'varchar(255)')
    .addColumn('import_url', 'text')
    .addColumn('original_path', 'varchar(255)')
    .addColumn('original_name', 'varchar(255)')
    .addColumn('override_params', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();

  await withId(db, db.schema.createTable('import_failures'))
    .addColumn('project_id', 'bigint', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('correlation_id', 'varchar(64)', notNull)
    .addColumn('relation_key', 'varchar(64)', notNull)
    .addColumn('relation_index', 'integer')
    .addColumn('exception_class', 'varchar(255)', notNull)
    .addColumn('exception_message', 'text', notNull)
    .addColumn('source', 'varchar(255)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('import_failures_project').on('import_failures').columns(['project_id', 'correlation_id', 'id']).execute();
  await db.schema.createIndex('import_failures_group').on('import_failures').columns(['group_id', 'id']).execute();

  await withId(db, db.schema.createTable('group_exports'))
    .addColumn('group_id', 'bigint', (c) => c.notNull().unique().references('namespaces.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', 'varchar(16)', notNull)
    .addColumn('file_path', 'varchar(255)')
    .addColumn('file_name', 'varchar(255)')
    .addColumn('file_size', 'bigint')
    .addColumn('exported_at', 'varchar(32)')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();

  await db.schema
    .createTable('group_import_states')
    .addColumn('group_id', 'bigint', (c) => c.primaryKey().references('namespaces.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', 'varchar(16)', notNull)
    .addColumn('last_error', 'text')
    .addColumn('file_path', 'varchar(255)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
}
