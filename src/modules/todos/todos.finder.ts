// Reading a user's to-do items (14.x TodosFinder): only their own, pending unless asked for done
// ones, newest first, narrowed by action, author, project, group (and its subgroups) and target
// type; those on projects the user may no longer read are left out.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Countable } from '../../core/pagination.ts';
import { projectVisibleTo } from '../../core/access/visibility.ts';
import { inSubtree } from '../../core/access/subtree.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { DB, TodoRow } from '../../db/schema.ts';

export interface TodoFilters {
  action?: string;
  author_id?: number;
  project_id?: number;
  group_id?: number;
  state?: 'pending' | 'done';
  type?: string;
}

export type TodosQuery = SelectQueryBuilder<DB, 'todos', TodoRow>;

/** `todos.project_id` names a project of the group `groupId` or of one of its subgroups. */
const inGroup = (groupId: number) =>
  sql<SqlBool>`todos.project_id in (select p.id from projects p join namespaces n on n.id = p.namespace_id
    join namespaces g on g.id = ${groupId} and g.type = 'Group' where ${inSubtree('n.traversal_path', sql.ref<string>('g.traversal_path'))})`;

/** The actor's to-dos the filters select, whatever their project. */
function ownTodos(db: Kysely<DB>, actor: Actor, filters: TodoFilters) {
  return db
    .selectFrom('todos')
    .where('todos.user_id', '=', actor.user.id)
    .where('todos.state', '=', filters.state ?? 'pending')
    .$if(filters.action !== undefined, (q) => q.where('todos.action', '=', filters.action!))
    .$if(filters.author_id !== undefined, (q) => q.where('todos.author_id', '=', filters.author_id!))
    .$if(filters.project_id !== undefined, (q) => q.where('todos.project_id', '=', filters.project_id!))
    .$if(filters.type !== undefined, (q) => q.where('todos.target_type', '=', filters.type!))
    .$if(filters.group_id !== undefined, (q) => q.where(inGroup(filters.group_id!)));
}

/** The project in `column` is one the actor may read. */
const readable = (db: Kysely<DB>, actor: Actor, column: string) =>
  sql<SqlBool>`exists ${db.selectFrom('projects').select(sql`1`.as('one')).where('projects.id', '=', sql.ref<number>(column)).where((eb) => projectVisibleTo(eb, actor))}`;

/** The actor's to-dos the filters select, on projects the actor may read, newest first. */
export function userTodos(db: Kysely<DB>, actor: Actor, filters: TodoFilters = {}): TodosQuery {
  return ownTodos(db, actor, filters).selectAll('todos').where(readable(db, actor, 'todos.project_id')).orderBy('todos.id', 'desc');
}

/**
 * The number of userTodos(), each project's readability asked once: from the counters triggers
 * keep per user, state and project (todo_counts) when the filters are no finer than a project,
 * else from the to-dos counted per project (an index range; 10,000 to-dos tested one by one took
 * 9 ms).
 */
export function userTodoCount(db: Kysely<DB>, actor: Actor, filters: TodoFilters = {}): Countable {
  const { action, author_id: authorId, group_id: groupId, type } = filters;
  const perProject =
    action === undefined && authorId === undefined && groupId === undefined && type === undefined
      ? db
          .selectFrom('todo_counts')
          .select(['todo_counts.project_id', 'todo_counts.todos'])
          .where('todo_counts.user_id', '=', actor.user.id)
          .where('todo_counts.state', '=', filters.state ?? 'pending')
          .$if(filters.project_id !== undefined, (q) => q.where('todo_counts.project_id', '=', filters.project_id!))
      : ownTodos(db, actor, filters).select(['todos.project_id', (eb) => eb.fn.countAll<number>().as('todos')]).groupBy('todos.project_id');
  return {
    tally: db
      .selectFrom(perProject.as('c'))
      .select(sql<number>`coalesce(sum(c.todos), 0)`.as('count'))
      .where(readable(db, actor, 'c.project_id')),
  };
}

/** One of the user's own to-dos (another user's is none). */
export async function findUserTodo(db: Kysely<DB>, userId: number, id: number): Promise<TodoRow | undefined> {
  return db.selectFrom('todos').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

/** The user's to-dos on one target, whatever their state, newest first. */
export function targetTodos(db: Kysely<DB>, userId: number, target: { type: string; id: number }): TodosQuery {
  return db.selectFrom('todos').selectAll().where('user_id', '=', userId).where('target_type', '=', target.type).where('target_id', '=', target.id).orderBy('id', 'desc');
}
