// Reading a user's to-do items (14.x TodosFinder): only their own, pending unless asked for done
// ones, newest first, narrowed by action, author, project, group (and its subgroups) and target
// type; those on projects the user may no longer read are left out.
import { type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
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

/** The actor's to-dos the filters select, newest first. */
export function userTodos(db: Kysely<DB>, actor: Actor, filters: TodoFilters = {}): TodosQuery {
  return db
    .selectFrom('todos')
    .selectAll('todos')
    .where('todos.user_id', '=', actor.user.id)
    .where('todos.state', '=', filters.state ?? 'pending')
    .$if(filters.action !== undefined, (q) => q.where('todos.action', '=', filters.action!))
    .$if(filters.author_id !== undefined, (q) => q.where('todos.author_id', '=', filters.author_id!))
    .$if(filters.project_id !== undefined, (q) => q.where('todos.project_id', '=', filters.project_id!))
    .$if(filters.type !== undefined, (q) => q.where('todos.target_type', '=', filters.type!))
    .$if(filters.group_id !== undefined, (q) => q.where(inGroup(filters.group_id!)))
    .where((eb) => eb.exists(eb.selectFrom('projects').select(sql`1`.as('one')).whereRef('projects.id', '=', 'todos.project_id').where((pe) => projectVisibleTo(pe, actor))))
    .orderBy('todos.id', 'desc');
}

/** One of the user's own to-dos (another user's is none). */
export async function findUserTodo(db: Kysely<DB>, userId: number, id: number): Promise<TodoRow | undefined> {
  return db.selectFrom('todos').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}
