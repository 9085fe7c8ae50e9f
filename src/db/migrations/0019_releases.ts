// Releases: a release names a tag of its project (one release per tag) and keeps the commit the
// tag pointed at when it was made; its asset links, its milestones, and the evidences collected
// for it (a summary of the release at a moment, with the summary's digest).
import type { Kysely } from 'kysely';
import { notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('releases'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('tag', 'varchar(255)', notNull)
    .addColumn('name', 'varchar(255)')
    .addColumn('description', 'text')
    .addColumn('author_id', 'bigint', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('sha', 'varchar(64)')
    .addColumn('released_at', 'varchar(32)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('releases_project_tag').on('releases').columns(['project_id', 'tag']).unique().execute();
  await db.schema.createIndex('releases_project_released').on('releases').columns(['project_id', 'released_at', 'id']).execute();
  await db.schema.createIndex('releases_project_created').on('releases').columns(['project_id', 'created_at', 'id']).execute();

  await withId(db, db.schema.createTable('release_links'))
    .addColumn('release_id', 'bigint', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('name', 'varchar(255)', notNull)
    .addColumn('url', 'text', notNull)
    .addColumn('filepath', 'varchar(128)')
    .addColumn('link_type', 'varchar(16)', (c) => c.notNull().defaultTo('other'))
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('release_links_release_name').on('release_links').columns(['release_id', 'name']).unique().execute();
  await db.schema.createIndex('release_links_release_url').on('release_links').columns(['release_id', 'url']).unique().execute();

  await db.schema
    .createTable('milestone_releases')
    .addColumn('milestone_id', 'bigint', (c) => c.notNull().references('milestones.id').onDelete('cascade'))
    .addColumn('release_id', 'bigint', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('milestone_releases_pkey', ['milestone_id', 'release_id'])
    .execute();
  await db.schema.createIndex('milestone_releases_release').on('milestone_releases').columns(['release_id', 'milestone_id']).execute();

  await withId(db, db.schema.createTable('release_evidences'))
    .addColumn('release_id', 'bigint', (c) => c.notNull().references('releases.id').onDelete('cascade'))
    .addColumn('summary', 'text', notNull)
    .addColumn('summary_sha', 'varchar(64)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  await db.schema.createIndex('release_evidences_release').on('release_evidences').columns(['release_id', 'id']).execute();
}
