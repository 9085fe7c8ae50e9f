// Discussions and resource events. Every note belongs to a discussion (its discussion_id, which
// notes written before now may lack: each gets one of its own, an individual note's); a diff note
// keeps its place in the merge request's diff (position, JSON). Changes of labels, state and
// milestone of an issue or a merge request are recorded as resource events, one row per change,
// naming the issue or the merge request they belong to (exactly one of the two).
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('notes').addColumn('position', 'text').execute();
  const hex40 = isPostgres(db) ? sql`substr(md5(random()::text || id::text) || md5(random()::text), 1, 40)` : sql`lower(hex(randomblob(20)))`;
  await sql`update notes set discussion_id = ${hex40} where discussion_id is null`.execute(db);
  await db.schema.createIndex('notes_noteable_discussion').on('notes').columns(['noteable_type', 'noteable_id', 'discussion_id']).execute();

  const eventTable = (name: string) =>
    withId(db, db.schema.createTable(name))
      .addColumn('issue_id', 'bigint', (c) => c.references('issues.id').onDelete('cascade'))
      .addColumn('merge_request_id', 'bigint', (c) => c.references('merge_requests.id').onDelete('cascade'))
      // The user is kept out of the way of a deleted account, as the platform's ghost user does.
      .addColumn('user_id', 'bigint', (c) => c.references('users.id').onDelete('set null'));

  // A deleted label leaves its events, naming no label.
  await eventTable('resource_label_events')
    .addColumn('label_id', 'bigint', (c) => c.references('labels.id').onDelete('set null'))
    .addColumn('action', 'varchar(8)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  await eventTable('resource_state_events')
    .addColumn('state', 'varchar(16)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  // A deleted milestone takes its events with it (the platform's foreign key cascades too).
  await eventTable('resource_milestone_events')
    .addColumn('milestone_id', 'bigint', (c) => c.references('milestones.id').onDelete('cascade'))
    .addColumn('action', 'varchar(8)', notNull)
    .addColumn('state', 'varchar(16)', notNull)
    .addColumn('created_at', 'varchar(32)', notNull)
    .execute();
  for (const table of ['resource_label_events', 'resource_state_events', 'resource_milestone_events']) {
    await db.schema.createIndex(`${table}_issue`).on(table).columns(['issue_id', 'id']).execute();
    await db.schema.createIndex(`${table}_merge_request`).on(table).columns(['merge_request_id', 'id']).execute();
  }
  await db.schema.createIndex('resource_label_events_label').on('resource_label_events').column('label_id').execute();
  await db.schema.createIndex('resource_milestone_events_milestone').on('resource_milestone_events').column('milestone_id').execute();
}
