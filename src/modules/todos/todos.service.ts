// To-do items (14.x TodoService): made for the users an issue, a merge request or an alert
// concerns (assigned, asked to review, mentioned, addressed, its pipeline failed, its automatic
// merge failed, marked by themselves) and done when the user acts on the target. The services of issues,
// merge requests, notes, pushes and pipelines call these inside their own transactions; this
// module knows none of them. Nobody gets a to-do on a target they may not read, and a user gets no
// second pending to-do like one they have (same target, action, author and note).
import { type Kysely, sql } from 'kysely';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { groupVisibleTo } from '../../core/access/visibility.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { projectAbilities } from '../../core/access/abilities.ts';
import { projectAccessLevel } from '../../core/access/authorizations.ts';
import type { DB, TodoRow } from '../../db/schema.ts';
import { issueVisibleTo } from '../../domain/issue-visibility.ts';
import { lineMentions, markdownMentions } from '../../domain/mentions.ts';
import { mergeRequestsOpenTo } from '../../domain/merge-request-visibility.ts';
import { loadNamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { userTodos } from './todos.finder.ts';
import { type TODO_TARGET_TYPES, type TodoAction } from './todos.schemas.ts';

export interface TodoTarget {
  type: (typeof TODO_TARGET_TYPES)[number];
  id: number;
  projectId: number;
}

/** What of a target may mention people: its title (never addressing anyone directly) and its Markdown. */
export interface MentioningText {
  title?: string | null;
  markdown: string | null;
}

/** The users among `ids` who may read the target now: active accounts that see it. */
async function readers(db: Kysely<DB>, target: TodoTarget, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const users = await db.selectFrom('users').selectAll().where('id', 'in', [...new Set(ids)]).where('state', '=', 'active').execute();
  const readable: number[] = [];
  // An alert is read from Developer up (read_alert_management_alert), not by every reader of its project.
  const alertProject = target.type === 'AlertManagement::Alert' ? await db.selectFrom('projects').select(['visibility_level', 'archived']).where('id', '=', target.projectId).executeTakeFirst() : undefined;
  for (const user of users) {
    const actor = actingUser(user);
    if (target.type === 'AlertManagement::Alert') {
      if (alertProject && projectAbilities(actor, alertProject, await projectAccessLevel(db, user.id, target.projectId)).has('read_alert_management_alert')) readable.push(user.id);
      continue;
    }
    const visible =
      target.type === 'Issue'
        ? db.selectFrom('issues').innerJoin('projects', 'projects.id', 'issues.project_id').select('issues.id').where('issues.id', '=', target.id).where((eb) => issueVisibleTo(eb, actor))
        : db.selectFrom('merge_requests').innerJoin('projects', 'projects.id', 'merge_requests.project_id').select('merge_requests.id').where('merge_requests.id', '=', target.id).where((eb) => mergeRequestsOpenTo(eb, actor));
    if (await visible.executeTakeFirst()) readable.push(user.id);
  }
  return readable;
}

interface TodoAttributes {
  action: TodoAction;
  authorId: number;
  noteId?: number | null;
}

/** Pending to-dos for those of `userIds` who may read the target and have none like it yet. */
async function createTodos(ctx: ServiceContext, target: TodoTarget, userIds: readonly number[], attrs: TodoAttributes): Promise<TodoRow[]> {
  const users = await readers(ctx.db, target, userIds);
  if (users.length === 0) return [];
  const noteId = attrs.noteId ?? null;
  const existing = await ctx.db
    .selectFrom('todos')
    .select('user_id')
    .where('target_type', '=', target.type)
    .where('target_id', '=', target.id)
    .where('user_id', 'in', users)
    .where('state', '=', 'pending')
    .where('project_id', '=', target.projectId)
    .where('action', '=', attrs.action)
    .where('author_id', '=', attrs.authorId)
    .where((eb) => (noteId === null ? eb('note_id', 'is', null) : eb('note_id', '=', noteId)))
    .execute();
  const taken = new Set(existing.map((row) => Number(row.user_id)));
  const fresh = users.filter((id) => !taken.has(id));
  if (fresh.length === 0) return [];
  const at = ctx.now().toISOString();
  return ctx.db
    .insertInto('todos')
    .values(
      fresh.map((userId) => ({
        user_id: userId,
        project_id: target.projectId,
        target_type: target.type,
        target_id: target.id,
        author_id: attrs.authorId,
        action: attrs.action,
        note_id: noteId,
        created_at: at,
        updated_at: at,
      })),
    )
    .returningAll()
    .execute();
}

/**
 * The users a text mentions, whom their names stand for: a user, the direct members of a group
 * the writer may see (none when the group turned mentions off), or with `@all` the project's
 * members.
 */
async function usersNamed(ctx: ServiceContext, target: TodoTarget, names: readonly string[]): Promise<number[]> {
  if (names.length === 0) return [];
  const ids = new Set<number>();
  if (names.includes('all')) {
    const members = await ctx.db.selectFrom('project_authorizations').select('user_id').where('project_id', '=', target.projectId).execute();
    for (const row of members) ids.add(Number(row.user_id));
  }
  const paths = names.filter((name) => name !== 'all');
  if (paths.length === 0) return [...ids];
  const namespaces = await ctx.db
    .selectFrom('namespaces')
    .select(['id', 'type', 'owner_id'])
    .where(sql`lower(full_path)`, 'in', paths)
    .where((eb) => eb.or([eb('type', '=', 'User'), groupVisibleTo(ctx.actor, ctx.now())]))
    .execute();
  for (const ns of namespaces) if (ns.type === 'User' && ns.owner_id !== null) ids.add(Number(ns.owner_id));
  const groupIds = namespaces.filter((ns) => ns.type === 'Group').map((ns) => Number(ns.id));
  const settings = await loadNamespaceSettings(ctx.db, groupIds);
  const mentionable = groupIds.filter((id) => settings.get(id)?.mentions_disabled !== true);
  if (mentionable.length > 0) {
    const today = ctx.now().toISOString().slice(0, 10);
    const members = await ctx.db
      .selectFrom('members')
      .select('user_id')
      .where('source_type', '=', 'Namespace')
      .where('source_id', 'in', mentionable)
      .where('access_level', '>=', ACCESS.GUEST)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]))
      .execute();
    for (const row of members) ids.add(Number(row.user_id));
  }
  return [...ids];
}

/** Who a text mentions: the users it addresses directly, and the others. */
async function mentionsOf(ctx: ServiceContext, target: TodoTarget, text: MentioningText): Promise<{ direct: number[]; other: number[] }> {
  const { directlyAddressed, mentioned } = markdownMentions(text.markdown);
  const inTitle = lineMentions(text.title ?? null);
  const direct = await usersNamed(ctx, target, directlyAddressed);
  const other = await usersNamed(ctx, target, [...new Set([...mentioned, ...inTitle])]);
  return { direct, other: other.filter((id) => !direct.includes(id)) };
}

/** Everyone a text mentions, directly or not (the users an edit of it does not mention anew). */
async function everyoneMentioned(ctx: ServiceContext, target: TodoTarget, text: MentioningText): Promise<number[]> {
  const { direct, other } = await mentionsOf(ctx, target, text);
  return [...direct, ...other];
}

/**
 * `directly_addressed` and `mentioned` to-dos for the users a text names, by the acting user; for a
 * note, they point at it. An edit passes the text it replaces: whoever it mentioned gets no new one.
 */
export async function mentionTodos(ctx: ServiceContext, target: TodoTarget, text: MentioningText, options: { noteId?: number; before?: MentioningText } = {}): Promise<void> {
  const author = requireActor(ctx).user.id;
  const { direct, other } = await mentionsOf(ctx, target, text);
  const skip = options.before ? new Set(await everyoneMentioned(ctx, target, options.before)) : new Set<number>();
  const fresh = (ids: number[]) => ids.filter((id) => !skip.has(id));
  await createTodos(ctx, target, fresh(direct), { action: 'directly_addressed', authorId: author, noteId: options.noteId });
  await createTodos(ctx, target, fresh(other), { action: 'mentioned', authorId: author, noteId: options.noteId });
}

/** `assigned` to-dos for new assignees (self-assignment too), `review_requested` for new reviewers, by the acting user. */
export async function assignmentTodos(ctx: ServiceContext, target: TodoTarget, userIds: readonly number[], action: 'assigned' | 'review_requested'): Promise<void> {
  if (userIds.length === 0) return;
  await createTodos(ctx, target, userIds, { action, authorId: requireActor(ctx).user.id });
}

/**
 * A note by the acting user: their pending to-dos on its target are done, then the users it
 * mentions get theirs (an edit passes the text it replaces).
 */
export async function noteTodos(ctx: ServiceContext, target: TodoTarget, note: { id: number; body: string }, before?: string): Promise<void> {
  await resolveTodos(ctx, target, requireActor(ctx).user.id);
  await mentionTodos(ctx, target, { markdown: note.body }, { noteId: note.id, before: before === undefined ? undefined : { markdown: before } });
}

/**
 * To-dos that name the merge request's participants themselves as their authors: its pipeline
 * failed (`build_failed`), or its automatic merge could not happen (`unmergeable`).
 */
export async function participantTodos(ctx: ServiceContext, target: TodoTarget, userIds: readonly number[], action: 'build_failed' | 'unmergeable'): Promise<void> {
  for (const userId of new Set(userIds)) await createTodos(ctx, target, [userId], { action, authorId: userId });
}

/** The user acted on the target (closed, merged, pushed to, commented on it): their pending to-dos on it are done. */
export async function resolveTodos(ctx: ServiceContext, target: TodoTarget, userId: number, actions?: readonly TodoAction[]): Promise<void> {
  await ctx.db
    .updateTable('todos')
    .set({ state: 'done', resolved_by_action: 'system_done', updated_at: ctx.now().toISOString() })
    .where('target_type', '=', target.type)
    .where('target_id', '=', target.id)
    .where('user_id', '=', userId)
    .where('state', '=', 'pending')
    .$if(actions !== undefined, (q) => q.where('action', 'in', actions!))
    .execute();
}

/** POST …/todo: a `marked` to-do of the acting user on the target; null when one is pending already. */
export async function markTodo(ctx: ServiceContext, target: TodoTarget): Promise<TodoRow | null> {
  const user = requireActor(ctx).user.id;
  return withTransaction(ctx, async (tx) => (await createTodos(tx, target, [user], { action: 'marked', authorId: user }))[0] ?? null);
}

/** A deleted target takes its to-dos with it. */
export async function deleteTargetTodos(ctx: ServiceContext, target: TodoTarget): Promise<void> {
  await ctx.db.deleteFrom('todos').where('target_type', '=', target.type).where('target_id', '=', target.id).execute();
}

/** POST /todos/:id/mark_as_done: the to-do, done (one already done stays as it was). */
export async function markTodoDone(ctx: ServiceContext, todo: TodoRow): Promise<TodoRow> {
  if (todo.state === 'done') return todo;
  return ctx.db.updateTable('todos').set({ state: 'done', resolved_by_action: 'api_done', updated_at: ctx.now().toISOString() }).where('id', '=', todo.id).returningAll().executeTakeFirstOrThrow();
}

/** POST /todos/mark_as_done: every pending to-do of the acting user that the list shows, done. */
export async function markAllTodosDone(ctx: ServiceContext): Promise<void> {
  const pending = userTodos(ctx.db, requireActor(ctx)).clearSelect().clearOrderBy().select('todos.id');
  await ctx.db.updateTable('todos').set({ state: 'done', resolved_by_action: 'api_all_done', updated_at: ctx.now().toISOString() }).where('id', 'in', pending).execute();
}
