// Protected branches and tags: a rule per name or wildcard pattern, and the access levels allowed
// to push, merge and unprotect (branches) or create (tags). Rules need no existing ref.
import { type Kysely, sql } from 'kysely';
import { falseByDefault, isPostgres, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('protected_branches'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', notNull)
    .addColumn('allow_force_push', 'boolean', falseByDefault)
    .addColumn('code_owner_approval_required', 'boolean', falseByDefault)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await uniqueNamePerProject(db, 'protected_branches');
  await db.schema.createIndex('protected_branches_project').on('protected_branches').columns(['project_id', 'id']).execute();

  // action: 'push', 'merge' or 'unprotect'.
  await withId(db, db.schema.createTable('protected_branch_access_levels'))
    .addColumn('protected_branch_id', 'bigint', (c) => c.notNull().references('protected_branches.id').onDelete('cascade'))
    .addColumn('action', 'varchar(16)', notNull)
    .addColumn('access_level', 'integer', notNull)
    .execute();
  await db.schema.createIndex('protected_branch_access_levels_branch').on('protected_branch_access_levels').columns(['protected_branch_id', 'id']).execute();

  await withId(db, db.schema.createTable('protected_tags'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('name', 'text', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await uniqueNamePerProject(db, 'protected_tags');
  await db.schema.createIndex('protected_tags_project').on('protected_tags').columns(['project_id', 'id']).execute();

  await withId(db, db.schema.createTable('protected_tag_create_access_levels'))
    .addColumn('protected_tag_id', 'bigint', (c) => c.notNull().references('protected_tags.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', notNull)
    .execute();
  await db.schema.createIndex('protected_tag_create_access_levels_tag').on('protected_tag_create_access_levels').columns(['protected_tag_id', 'id']).execute();
}

/**
 * One rule per name and project. Names have no length limit (as on the platform), and a
 * PostgreSQL b-tree entry must stay under ~2.7 kB, so PostgreSQL indexes a digest of the name.
 */
async function uniqueNamePerProject(db: Kysely<any>, table: string): Promise<void> {
  const key = isPostgres(db) ? sql`md5(name)` : sql`name`;
  await sql`create unique index ${sql.raw(`${table}_name`)} on ${sql.table(table)} (project_id, ${key})`.execute(db);
}
