// What keeps list counts and searches from growing with the instance:
// - project_visibility_counts: the number of projects at each visibility level, kept by triggers
//   (they also see the projects a group's deletion cascades to), so that the visible projects'
//   count reads one row per level instead of an index range;
// - project_authorizations.visibility_level: the project's level beside each authorization, kept
//   by a trigger when a project's level changes, so that "authorized on a project at a level not
//   visible anyway" counts from the (user_id, visibility_level) index alone;
// - on SQLite, namespaces_search: a trigram index over the paths and names of namespaces (FTS5,
//   external content, kept by triggers), which narrows a search to the rows holding its words
//   before the LIKE conditions check them;
// - namespace_member_counts: the member counts a namespace entity shows, kept once computed and
//   valid while membership_generation (bumped by triggers on every change that can alter any count:
//   memberships, user states and types, moves and deletions) and the day (memberships expire by
//   day) are those they were computed at.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('project_visibility_counts')
    .addColumn('visibility_level', 'integer', (c) => c.primaryKey())
    .addColumn('projects', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into project_visibility_counts (visibility_level, projects)
            select visibility_level, count(*) from projects group by visibility_level`.execute(db);

  await db.schema.alterTable('project_authorizations').addColumn('visibility_level', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await sql`update project_authorizations
               set visibility_level = (select p.visibility_level from projects p where p.id = project_authorizations.project_id)`.execute(db);
  await db.schema.createIndex('project_authorizations_user_visibility').on('project_authorizations').columns(['user_id', 'visibility_level']).execute();

  await db.schema
    .createTable('membership_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into membership_generation (id, generation) values (1, 0)`.execute(db);
  await db.schema
    .createTable('namespace_member_counts')
    .addColumn('namespace_id', 'bigint', (c) => c.primaryKey().references('namespaces.id').onDelete('cascade'))
    .addColumn('generation', 'bigint', (c) => c.notNull())
    .addColumn('counted_on', 'varchar(10)', (c) => c.notNull())
    .addColumn('billable', 'integer', (c) => c.notNull())
    .addColumn('with_descendants', 'integer', (c) => c.notNull())
    .execute();

  if (isPostgres(db)) await postgresTriggers(db);
  else await sqliteTriggersAndSearch(db);
}

/** Table → the events after which every cached member count is stale. */
const MEMBERSHIP_CHANGES: [string, string][] = [
  ['members', 'insert or update or delete'],
  ['users', 'update of state, user_type'],
  ['namespaces', 'update of traversal_path or delete'],
  ['projects', 'update of namespace_id or delete'],
];

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  await sql`
    create function project_visibility_counts_change() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update project_visibility_counts set projects = projects - 1 where visibility_level = old.visibility_level;
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        insert into project_visibility_counts (visibility_level, projects) values (new.visibility_level, 1)
          on conflict (visibility_level) do update set projects = project_visibility_counts.projects + 1;
      end if;
      if tg_op = 'UPDATE' then
        update project_authorizations set visibility_level = new.visibility_level where project_id = new.id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger projects_insert_delete_count after insert or delete on projects
            for each row execute function project_visibility_counts_change()`.execute(db);
  await sql`create trigger projects_visibility_change after update of visibility_level on projects
            for each row when (old.visibility_level is distinct from new.visibility_level)
            execute function project_visibility_counts_change()`.execute(db);
  await sql`
    create function membership_generation_bump() returns trigger language plpgsql as $$
    begin
      update membership_generation set generation = generation + 1;
      return null;
    end $$`.execute(db);
  for (const [table, events] of MEMBERSHIP_CHANGES) {
    await sql.raw(`create trigger ${table}_membership_change after ${events} on ${table}
                   for each statement execute function membership_generation_bump()`).execute(db);
  }
}

async function sqliteTriggersAndSearch(db: Kysely<any>): Promise<void> {
  const statements = [
    `create trigger projects_count_insert after insert on projects begin
       insert into project_visibility_counts (visibility_level, projects) values (new.visibility_level, 1)
         on conflict (visibility_level) do update set projects = projects + 1;
     end`,
    `create trigger projects_count_delete after delete on projects begin
       update project_visibility_counts set projects = projects - 1 where visibility_level = old.visibility_level;
     end`,
    `create trigger projects_visibility_change after update of visibility_level on projects
       when old.visibility_level is not new.visibility_level begin
       update project_visibility_counts set projects = projects - 1 where visibility_level = old.visibility_level;
       insert into project_visibility_counts (visibility_level, projects) values (new.visibility_level, 1)
         on conflict (visibility_level) do update set projects = projects + 1;
       update project_authorizations set visibility_level = new.visibility_level where project_id = new.id;
     end`,
    `create virtual table namespaces_search using fts5(path, name, content='namespaces', content_rowid='id', tokenize='trigram')`,
    `insert into namespaces_search (namespaces_search) values ('rebuild')`,
    `create trigger namespaces_search_insert after insert on namespaces begin
       insert into namespaces_search (rowid, path, name) values (new.id, new.path, new.name);
     end`,
    `create trigger namespaces_search_delete after delete on namespaces begin
       insert into namespaces_search (namespaces_search, rowid, path, name) values ('delete', old.id, old.path, old.name);
     end`,
    `create trigger namespaces_search_update after update of path, name on namespaces begin
       insert into namespaces_search (namespaces_search, rowid, path, name) values ('delete', old.id, old.path, old.name);
       insert into namespaces_search (rowid, path, name) values (new.id, new.path, new.name);
     end`,
  ];
  for (const [table, events] of MEMBERSHIP_CHANGES) {
    for (const event of events.split(' or ')) {
      statements.push(`create trigger ${table}_membership_${event.split(' ')[0]} after ${event} on ${table} begin
         update membership_generation set generation = generation + 1;
       end`);
    }
  }
  for (const statement of statements) await sql.raw(statement).execute(db);
}
