// Reading a user's to-do items (14.x TodosFinder): only their own, pending unless asked for done
// ones, newest first, narrowed by action, author, project, group (and its subgroups) and target
// type; those on projects the user may no longer read are left out.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { ReadyCollection } from '../../core/pagination.ts';
import { type ProjectReader, projectVisibleTo } from '../../core/access/visibility.ts';
import { inSubtree } from '../../core/access/subtree.ts';
import { prepared } from '../../db/prepared.ts';
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
function ownTodos(db: Kysely<DB>, actor: ProjectReader, filters: TodoFilters) {
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
const readable = (db: Kysely<DB>, actor: ProjectReader, column: string) =>
  sql<SqlBool>`exists ${db.selectFrom('projects').select(sql`1`.as('one')).where('projects.id', '=', sql.ref<number>(column)).where((eb) => projectVisibleTo(eb, actor))}`;

/** The actor's to-dos the filters select, on projects the actor may read, newest first. */
export function userTodos(db: Kysely<DB>, actor: ProjectReader, filters: TodoFilters = {}): TodosQuery {
  return ownTodos(db, actor, filters).selectAll('todos').where(readable(db, actor, 'todos.project_id')).orderBy('todos.id', 'desc');
}

/**
 * The number of userTodos(), each project's readability asked once: from the counters triggers
 * keep per user, state and project (todo_counts) when the filters are no finer than a project,
 * else from the to-dos counted per project (an index range; 10,000 to-dos tested one by one took
 * 9 ms).
 */
function userTodoCount(db: Kysely<DB>, actor: ProjectReader, filters: TodoFilters) {
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
  return db
    .selectFrom(perProject.as('c'))
    .select(sql<number>`coalesce(sum(c.todos), 0)`.as('count'))
    .where(readable(db, actor, 'c.project_id'));
}

/**
 * The reader and filters of a to-do list as prepared statements take them: whether the reader is
 * an administrator and external and which filters are given shape the statement; the user's id and
 * the filters' values are bound.
 */
type TodoArgs = [
  userId: number,
  isAdmin: boolean,
  external: boolean,
  state: string,
  action: string | undefined,
  authorId: number | undefined,
  projectId: number | undefined,
  type: string | undefined,
  groupId: number | undefined,
];

const todoArgs = (actor: ProjectReader, filters: TodoFilters): TodoArgs => [
  actor.user.id,
  actor.isAdmin,
  actor.user.external,
  filters.state ?? 'pending',
  filters.action,
  filters.author_id,
  filters.project_id,
  filters.type,
  filters.group_id,
];

function fromArgs([userId, isAdmin, external, state, action, authorId, projectId, type, groupId]: TodoArgs): [ProjectReader, TodoFilters] {
  return [{ isAdmin, user: { id: userId, external } }, { state: state as TodoFilters['state'], action, author_id: authorId, project_id: projectId, type, group_id: groupId }];
}

const todoRows = prepared((db, limit: number, offset: number, ...args: TodoArgs) => userTodos(db, ...fromArgs(args)).limit(limit).offset(offset));
const todoTotal = prepared((db, ...args: TodoArgs) => userTodoCount(db, ...fromArgs(args)));

/** The actor's to-do list (userTodos) and its number, read through statements prepared once. */
export function userTodoList(db: Kysely<DB>, actor: ProjectReader, filters: TodoFilters): ReadyCollection<TodoRow> {
  const args = todoArgs(actor, filters);
  return {
    rows: (limit, offset) => todoRows(db, limit, offset, ...args),
    count: async () => Number((await todoTotal(db, ...args))[0].count),
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
