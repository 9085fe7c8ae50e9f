// What people do with an alert, in GraphQL as 14.x serves it:
//   updateAlertStatus(input { projectPath iid status }), alertSetAssignees(input { projectPath iid
//     assigneeUsernames operationMode }), alertTodoCreate(input { projectPath iid })
//     → { alert errors todo issue clientMutationId }
//   and the alert's fields these show: assignees, todos (the caller's), notes (system notes included).
// A mutation on a project or alert the caller may not update (Developer and up), or that does not
// exist, is the platform's "resource not available" error; a refused change comes back in `errors`
// beside the unchanged alert. Alerts make no incidents here, so `issue` is always null.
import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
} from 'graphql';
import { accessToProject, findProjectByFullPath } from '../../core/access/loaders.ts';
import type { AlertManagementAlertRow, NoteRow, ProjectRow, TodoRow, UserRow } from '../../db/schema.ts';
import { type ConnectionArgs, connectionArgs, connectionType, keysetConnection } from '../../graphql/connection.ts';
import { type GraphqlContext, mutationContext, resourceNotAvailable } from '../../graphql/context.ts';
import { globalId } from '../../graphql/ids.ts';
import { TimeType, UserCoreType } from '../../graphql/types.ts';
import { noteableNotes } from '../notes/notes.finder.ts';
import { targetTodos } from '../todos/todos.finder.ts';
import { TODO_ACTIONS, TODO_STATES } from '../todos/todos.schemas.ts';
import { type AlertChange, type AssigneeMode, alertNoteable, alertTodoTarget, changeAlertStatus, createAlertTodo, setAlertAssignees, userIdsNamed } from './alert-actions.service.ts';
import { alertAssignees, findProjectAlert } from './alert-management.finder.ts';
import type { AlertStatus } from './alert-payload.ts';

/** The alerts of one page, so that a field of each (its assignees) is read once for all of them. */
export interface Batch {
  ids: number[];
  assignees?: Promise<Map<number, UserRow[]>>;
}

/** A node with the full path of its project, which its addresses show, and the page it is on. */
export interface Owned<Row> {
  row: Row;
  projectFullPath: string;
  batch?: Batch;
}

/** Users by id, one query for the lot. */
async function usersByIds(ctx: GraphqlContext, ids: readonly (number | null)[]): Promise<Map<number, UserRow>> {
  const wanted = [...new Set(ids.filter((id): id is number => id !== null))];
  if (wanted.length === 0) return new Map();
  const rows = await ctx.deps.db.selectFrom('users').selectAll().where('id', 'in', wanted).execute();
  return new Map(rows.map((u) => [u.id, u]));
}

/** A list with its authors, as connection nodes. */
interface Authored<Row> {
  row: Row;
  author: UserRow | null;
  title: string;
}

const TodoActionEnum = new GraphQLEnumType({ name: 'TodoActionEnum', values: Object.fromEntries(TODO_ACTIONS.map((a) => [a, { value: a }])) });
const TodoStateEnum = new GraphQLEnumType({ name: 'TodoStateEnum', values: Object.fromEntries(TODO_STATES.map((s) => [s, { value: s }])) });
const TodoTargetEnum = new GraphQLEnumType({
  name: 'TodoTargetEnum',
  values: { COMMIT: { value: 'Commit' }, ISSUE: { value: 'Issue' }, MERGEREQUEST: { value: 'MergeRequest' }, DESIGN: { value: 'DesignManagement::Design' }, ALERT: { value: 'AlertManagement::Alert' } },
});

const TodoType = new GraphQLObjectType<Authored<TodoRow>, GraphqlContext>({
  name: 'Todo',
  description: 'Representing a to-do entry.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: ({ row }) => globalId('Todo', row.id) },
    action: { type: new GraphQLNonNull(TodoActionEnum), resolve: ({ row }) => row.action },
    author: { type: new GraphQLNonNull(UserCoreType), resolve: ({ author }) => author },
    targetType: { type: new GraphQLNonNull(TodoTargetEnum), resolve: ({ row }) => row.target_type },
    // A to-do made by a note shows the note; the alerts' are made by no note.
    body: { type: new GraphQLNonNull(GraphQLString), resolve: ({ title }) => title },
    state: { type: new GraphQLNonNull(TodoStateEnum), resolve: ({ row }) => row.state },
    createdAt: { type: new GraphQLNonNull(TimeType), resolve: ({ row }) => row.created_at },
  },
});

const NoteType = new GraphQLObjectType<Authored<NoteRow>, GraphqlContext>({
  name: 'Note',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: ({ row }) => globalId('Note', row.id) },
    body: { type: new GraphQLNonNull(GraphQLString), resolve: ({ row }) => row.body },
    author: { type: new GraphQLNonNull(UserCoreType), resolve: ({ author }) => author },
    system: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Indicates whether this note was created by the system or by a user.', resolve: ({ row }) => row.system },
    confidential: { type: GraphQLBoolean, resolve: ({ row }) => row.confidential },
    createdAt: { type: new GraphQLNonNull(TimeType), resolve: ({ row }) => row.created_at },
    updatedAt: { type: new GraphQLNonNull(TimeType), resolve: ({ row }) => row.updated_at },
  },
});

/** What the payloads name of an issue (alerts make none here: always null). */
const IssueType = new GraphQLObjectType({
  name: 'Issue',
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, iid: { type: new GraphQLNonNull(GraphQLString) }, title: { type: new GraphQLNonNull(GraphQLString) } },
});

/** A page of rows with their authors, ordered by id in `direction`. */
async function authoredConnection<Row extends { id: number; author_id: number | null }>(ctx: GraphqlContext, query: Parameters<typeof keysetConnection<Row>>[0]['query'], direction: 'asc' | 'desc', title: string, args: ConnectionArgs) {
  const page = await keysetConnection<Row>(
    { query, keys: [{ column: 'id', direction, value: (row) => row.id }], count: async () => Number((await query.clearSelect().clearOrderBy().select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n ?? 0) },
    args,
  );
  const authors = await usersByIds(ctx, page.nodes.map((row) => row.author_id));
  const wrap = (row: Row): Authored<Row> => ({ row, author: row.author_id === null ? null : (authors.get(row.author_id) ?? null), title });
  return { ...page, nodes: page.nodes.map(wrap), edges: page.edges.map((e) => ({ cursor: e.cursor, node: wrap(e.node) })) };
}

/** The alert's own fields these actions show. */
export function alertActionFields(): GraphQLFieldConfigMap<Owned<AlertManagementAlertRow>, GraphqlContext> {
  return {
    assignees: {
      type: connectionType(UserCoreType),
      description: 'Assignees of the alert.',
      args: connectionArgs,
      resolve: async ({ row, batch }, _args, ctx) => {
        const all = batch ?? { ids: [row.id] };
        all.assignees ??= alertAssignees(ctx.deps.db, all.ids);
        const nodes = (await all.assignees).get(row.id) ?? [];
        return { nodes, edges: nodes.map((node) => ({ cursor: globalId('User', node.id), node })), pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, count: nodes.length };
      },
    },
    todos: {
      type: connectionType(TodoType),
      description: 'To-do items of the current user for the alert.',
      args: connectionArgs,
      resolve: ({ row }, args: ConnectionArgs, ctx) => (ctx.actor ? authoredConnection(ctx, targetTodos(ctx.deps.db, ctx.actor.user.id, alertTodoTarget(row)).clearOrderBy(), 'desc', row.title, args) : { nodes: [], edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, count: 0 }),
    },
    notes: {
      type: new GraphQLNonNull(connectionType(NoteType)),
      description: 'All notes on this noteable.',
      args: connectionArgs,
      resolve: ({ row }, args: ConnectionArgs, ctx) =>
        authoredConnection(ctx, noteableNotes(ctx.deps.db, alertNoteable(row), { orderBy: 'created_at', sort: 'asc', activityFilter: 'all_notes' }).clearOrderBy(), 'asc', row.title, args),
    },
  };
}

// ---- Mutations ------------------------------------------------------------------------------------

/** The alert the caller may update, or the platform's refusal (the same whatever is missing). */
async function alertToUpdate(ctx: GraphqlContext, projectPath: string, iid: string): Promise<{ project: ProjectRow; alert: AlertManagementAlertRow }> {
  const found = await findProjectByFullPath(ctx.deps.db, projectPath);
  if (!found) throw resourceNotAvailable();
  const { can } = await accessToProject(ctx.request, found.row);
  if (!can.has('update_alert_management_alert')) throw resourceNotAvailable();
  const number = /^\d{1,15}$/.test(iid) ? Number(iid) : null;
  const alert = number === null ? undefined : await findProjectAlert(ctx.deps.db, found.row.id, number);
  if (!alert) throw resourceNotAvailable();
  return { project: found.row, alert };
}

interface AlertMutationInput {
  clientMutationId?: string | null;
  projectPath: string;
  iid: string;
}

const MutationOperationModeEnum = new GraphQLEnumType({
  name: 'MutationOperationMode',
  description: 'Different toggles for changing mutator behavior',
  values: { REPLACE: { value: 'replace' }, APPEND: { value: 'append' }, REMOVE: { value: 'remove' } },
});

export function alertActionMutations(alertType: GraphQLObjectType, statusEnum: GraphQLEnumType): GraphQLFieldConfigMap<unknown, GraphqlContext> {
  const payload = (name: string) =>
    new GraphQLObjectType({
      name: `${name}Payload`,
      description: `Autogenerated return type of ${name}.`,
      fields: {
        clientMutationId: { type: GraphQLString },
        errors: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))) },
        alert: { type: alertType, description: 'Alert after mutation.' },
        issue: { type: IssueType, description: 'Issue created after mutation.' },
        todo: { type: TodoType, description: 'To-do item after mutation.' },
      },
    });
  const input = (name: string, fields: Record<string, { type: unknown; description?: string }>) =>
    new GraphQLNonNull(
      new GraphQLInputObjectType({
        name: `${name}Input`,
        description: `Autogenerated input type of ${name}.`,
        fields: {
          projectPath: { type: new GraphQLNonNull(GraphQLID), description: 'Project the alert to mutate is in.' },
          iid: { type: new GraphQLNonNull(GraphQLString), description: 'IID of the alert to mutate.' },
          ...fields,
          clientMutationId: { type: GraphQLString, description: 'A unique identifier for the client performing the mutation.' },
        } as never,
      }),
    );
  const mutation = <I extends AlertMutationInput>(name: string, fields: Record<string, { type: unknown; description?: string }>, act: (i: I, found: { project: ProjectRow; alert: AlertManagementAlertRow }, service: ReturnType<typeof mutationContext>) => Promise<AlertChange & { todo?: TodoRow | null }>) => ({
    type: payload(name),
    args: { input: { type: input(name, fields) } },
    resolve: async (_root: unknown, args: { input: I }, ctx: GraphqlContext) => {
      const service = mutationContext(ctx);
      const found = await alertToUpdate(ctx, args.input.projectPath, args.input.iid);
      const result = await act(args.input, found, service);
      const todo = result.todo ? { row: result.todo, author: service.actor?.user ?? null, title: result.alert.title } : null;
      return { clientMutationId: args.input.clientMutationId ?? null, errors: result.errors, alert: { row: result.alert, projectFullPath: found.project.full_path }, issue: null, todo };
    },
  });
  return {
    updateAlertStatus: mutation<AlertMutationInput & { status: AlertStatus }>('UpdateAlertStatus', { status: { type: new GraphQLNonNull(statusEnum), description: 'Status to set the alert.' } }, (i, { project, alert }, service) =>
      changeAlertStatus(service, project, alert, i.status),
    ),
    alertSetAssignees: mutation<AlertMutationInput & { assigneeUsernames: string[]; operationMode?: AssigneeMode | null }>(
      'AlertSetAssignees',
      {
        assigneeUsernames: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Usernames to assign to the alert. Replaces existing assignees by default.' },
        operationMode: { type: MutationOperationModeEnum, description: 'Operation to perform. Defaults to REPLACE.' },
      },
      async (i, { project, alert }, service) => setAlertAssignees(service, project, alert, await userIdsNamed(service, i.assigneeUsernames), i.operationMode ?? 'replace'),
    ),
    alertTodoCreate: mutation<AlertMutationInput>('AlertTodoCreate', {}, (_i, { alert }, service) => createAlertTodo(service, alert)),
  };
}
