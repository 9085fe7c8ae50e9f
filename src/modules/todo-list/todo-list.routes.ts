// To-do items (spec Part 2 §4.5; 14.x lib/api/todos.rb): a signed-in user's own list, one of them
// or all of them marked done, and an issue or merge request marked as a to-do by its reader
// (201 with the to-do, 304 without a body when one like it is pending).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import type { TodoRow } from '../../db/schema.ts';
import { canReadIssue, findIssueByIid } from '../issues/issues.finder.ts';
import { findMergeRequestByIid } from '../merge-requests/merge-requests.finder.ts';
import { mergeRequestAccess } from '../merge-requests/merge-requests.routes.ts';
import { findUserTodo, userTodoList } from '../todos/todos.finder.ts';
import { type TodoTarget, markAllTodosDone, markTodo, markTodoDone } from '../todos/todos.service.ts';
import { presentTodo } from './todo-list.presenter.ts';
import { IssueTodoParams, ListTodosQuery, MergeRequestTodoParams, TodoEntity, TodoParams } from './todo-list.schemas.ts';
import { loadTodoPage } from './todo-targets.ts';

const REQUIRED = { auth: 'required' } as const;

export const todoListRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;

  async function present(req: FastifyRequest, rows: TodoRow[]) {
    const page = await loadTodoPage(db, rows, req.actor!, config.externalUrl, api.deps.now().toISOString().slice(0, 10));
    return rows.flatMap((row) => presentTodo(row, page, config.externalUrl) ?? []);
  }

  api.get('/todos', { schema: { querystring: ListTodosQuery, response: { 200: Type.Array(TodoEntity) } }, config: REQUIRED }, async (req, reply) => {
    const rows = await paginate(req, reply, userTodoList(db, req.actor!, req.query));
    return present(req, rows);
  });

  api.post('/todos/:id/mark_as_done', { schema: { params: TodoParams, response: { 201: TodoEntity } }, config: REQUIRED }, async (req, reply) => {
    const todo = await findUserTodo(db, req.actor!.user.id, req.params.id);
    if (!todo) throw apiError(404, '404 Not found');
    const done = await markTodoDone(serviceContext(req), todo);
    reply.code(201);
    return (await present(req, [done]))[0];
  });

  api.post('/todos/mark_as_done', { schema: { response: { 204: NoContent } }, config: REQUIRED }, async (req, reply) => {
    await markAllTodosDone(serviceContext(req));
    return reply.code(204).send();
  });

  /** 201 with the caller's new `marked` to-do, or 304 without a body when one is pending. */
  async function mark(req: FastifyRequest, reply: FastifyReply, target: TodoTarget) {
    const todo = await markTodo(serviceContext(req), target);
    if (todo === null) return reply.code(304).send();
    reply.code(201);
    return (await present(req, [todo]))[0];
  }

  const marking = { config: REQUIRED, preHandler: loadProject('read_project') };

  api.post('/projects/:id/issues/:issue_iid/todo', { schema: { params: IssueTodoParams, response: { 201: TodoEntity, 304: NoContent } }, ...marking }, async (req, reply) => {
    const project = loadedProject(req);
    const issue = await findIssueByIid(db, project.row.id, req.params.issue_iid);
    if (!issue || !(await canReadIssue(db, req.actor, issue))) throw apiError(404, '404 Not found');
    // 14.x asks whether the caller may read the project's merge requests, for issues too.
    if (!(await mergeRequestAccess(req, project)).read) throw notFound('Issues');
    return mark(req, reply, { type: 'Issue', id: issue.id, projectId: issue.project_id });
  });

  api.post('/projects/:id/merge_requests/:merge_request_iid/todo', { schema: { params: MergeRequestTodoParams, response: { 201: TodoEntity, 304: NoContent } }, ...marking }, async (req, reply) => {
    const project = loadedProject(req);
    const mr = (await mergeRequestAccess(req, project)).read ? await findMergeRequestByIid(db, project.row.id, req.params.merge_request_iid) : undefined;
    if (!mr) throw apiError(404, '404 Not found');
    return mark(req, reply, { type: 'MergeRequest', id: mr.id, projectId: mr.project_id });
  });
};
