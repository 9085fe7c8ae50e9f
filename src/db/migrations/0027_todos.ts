// To-do items: what a user is asked to look at (assigned, mentioned, a failed pipeline …) on an
// issue or a merge request, pending until done. Targets are polymorphic (no foreign key): their
// services delete a target's to-dos with it; a project's, a user's and a note's go with them.
// A user's to-dos are counted per state and project by triggers, so that the X-Total of a list
// reads one row per project instead of every to-do.
import { type Kysely, sql } from 'kysely';
import { isPostgres, notNull, withId } from './helpers.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await withId(db, db.schema.createTable('todos'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('target_type', 'varchar(64)', notNull)
    .addColumn('target_id', 'bigint', notNull)
    .addColumn('author_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('action', 'varchar(32)', notNull)
    .addColumn('note_id', 'bigint', (c) => c.references('notes.id').onDelete('cascade'))
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('pending'))
    .addColumn('resolved_by_action', 'varchar(32)')
    .addColumn('created_at', 'varchar(32)', notNull)
    .addColumn('updated_at', 'varchar(32)', notNull)
    .execute();
  // A user's list, newest first, by state; counted per project when it is filtered.
  await db.schema.createIndex('todos_user_state_id').on('todos').columns(['user_id', 'state', 'id']).execute();
  await db.schema.createIndex('todos_user_state_project').on('todos').columns(['user_id', 'state', 'project_id']).execute();
  // A target's to-dos: resolving them for a user, deleting them with it.
  await db.schema.createIndex('todos_target_user').on('todos').columns(['target_type', 'target_id', 'user_id']).execute();
  await db.schema.createIndex('todos_project').on('todos').column('project_id').execute();
  await db.schema.createIndex('todos_author').on('todos').column('author_id').execute();
  await db.schema.createIndex('todos_note').on('todos').column('note_id').execute();

  await db.schema
    .createTable('todo_counts')
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('state', 'varchar(16)', notNull)
    .addColumn('project_id', 'bigint', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('todos', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('todo_counts_pkey', ['user_id', 'state', 'project_id'])
    .execute();
  await db.schema.createIndex('todo_counts_project').on('todo_counts').column('project_id').execute();
  if (isPostgres(db)) await postgresTriggers(db);
  else await sqliteTriggers(db);
}

// A count changes when a to-do is made, deleted (cascades included) or changes state; its user
// and project never change.
async function postgresTriggers(db: Kysely<any>): Promise<void> {
  await sql`
    create function todos_count() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update todo_counts set todos = todos - 1 where user_id = old.user_id and state = old.state and project_id = old.project_id;
      end if;
      if tg_op in ('UPDATE', 'INSERT') then
        insert into todo_counts as c (user_id, state, project_id, todos) values (new.user_id, new.state, new.project_id, 1)
          on conflict (user_id, state, project_id) do update set todos = c.todos + 1;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger todos_count after insert or delete on todos for each row execute function todos_count()`.execute(db);
  await sql`create trigger todos_count_state after update of state on todos for each row when (old.state is distinct from new.state) execute function todos_count()`.execute(db);
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const add = `insert into todo_counts (user_id, state, project_id, todos) values (new.user_id, new.state, new.project_id, 1)
      on conflict (user_id, state, project_id) do update set todos = todos + 1;`;
  const remove = 'update todo_counts set todos = todos - 1 where user_id = old.user_id and state = old.state and project_id = old.project_id;';
  const statements = [
    `create trigger todos_count_insert after insert on todos begin ${add} end`,
    `create trigger todos_count_delete after delete on todos begin ${remove} end`,
    `create trigger todos_count_state after update of state on todos when old.state is not new.state begin ${remove} ${add} end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
