// Issues (14.x lib/api/issues.rb): a project's, every readable project's (/issues), a group's.
// Reading follows the issues feature and confidentiality; guests and any signed-in reader may open
// issues; the author, assignees and Reporters and up edit them; owners delete them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../../core/auth/actor.ts';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { ACCESS } from '../../core/access/levels.ts';
import { type LoadedProject, loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden, notFound, unauthorized } from '../../core/errors.ts';
import { cappedCount, paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { assignableUsers } from '../../domain/issuables.ts';
import type { Kysely } from 'kysely';
import type { DB, IssueRow } from '../../db/schema.ts';
import { projectLabelScope } from '../../domain/labels.ts';
import { readFeatureLevel } from '../../domain/settings/project-settings.ts';
import { filterIssues, orderIssues } from './issue-filters.ts';
import { type IssuesQuery, canReadIssue, findIssueByIid, groupIssues, labelTally, loadIssueRelations, projectIssues, readableIssues, usableMilestone } from './issues.finder.ts';
import { type IssueView, presentIssue } from './issues.presenter.ts';
import { CreateIssueBody, IssueEntity, IssueIdParams, IssueParams, ListIssuesQuery, ProjectParams, UpdateIssueBody } from './issues.schemas.ts';
import { type IssueChanges, type IssuePowers, createIssue, deleteIssue, updateIssue } from './issues.service.ts';

const OPTIONAL = { auth: 'optional' } as const;

/** Parameters that keep a project's issue list one range of an index (issues_project_state_created). */
const RANGE_PARAMS = new Set(['page', 'per_page', 'pagination', 'state', 'order_by', 'sort', 'with_labels_details']);

/**
 * X-Total of a project's list filtered by state alone, capped: whether it holds more than 10,000
 * issues is read by skipping that many index entries (0.25 ms for 100,000 issues on SQLite, where
 * counting them all takes 4 ms). Other filters probe each issue, and their plain count costs less.
 */
function indexRangeCount(db: Kysely<DB>, q: IssuesQuery, query: Record<string, unknown>) {
  return Object.keys(query).every((key) => RANGE_PARAMS.has(key)) ? [cappedCount(db, q)] : undefined;
}

/** X-Total of a project's list: from the label counters when one label (and a state) is its only filter. */
function projectListCount(db: Kysely<DB>, actor: Actor | null, projectId: number, q: IssuesQuery, query: typeof ListIssuesQuery.static) {
  const { labels, ...rest } = query;
  const title = labels?.length === 1 ? labels[0].trim() : '';
  const special = ['none', 'any'].includes(title.toLowerCase()) || title === 'No Label' || title === '' || title.includes(',');
  if (labels === undefined || special) return indexRangeCount(db, q, query);
  if (!Object.keys(rest).every((key) => RANGE_PARAMS.has(key))) return undefined;
  return [labelTally(db, actor, projectId, title, query.state === 'opened' || query.state === 'closed' ? query.state : null, q)];
}
const REQUIRED = { auth: 'required' } as const;

/** What the actor may do with the issues of the loaded project. */
export interface IssueAccess {
  read: boolean;
  create: boolean;
  /** admin_issue: Reporters and up (and administrators), unless the project is archived. */
  admin: boolean;
  destroy: boolean;
}

export async function issueAccess(req: FastifyRequest, project: LoadedProject): Promise<IssueAccess> {
  const level = await readFeatureLevel(req.server.deps.db, project.row, 'issues');
  const read = projectFeatureAvailable(req.actor, project.row, project.access, 'issues', level);
  const admin = req.actor?.isAdmin === true || project.access >= ACCESS.REPORTER;
  const writable = read && !project.row.archived;
  return { read, create: writable && req.actor !== null, admin: writable && admin, destroy: read && (req.actor?.isAdmin === true || project.access >= ACCESS.OWNER) };
}

export const issueRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  const today = () => api.deps.now().toISOString().slice(0, 10);

  async function present(req: FastifyRequest, rows: IssueRow[], view: Omit<IssueView, 'baseUrl'>) {
    const relations = await loadIssueRelations(db, rows, req.actor, view.withSubscribed ? (req.actor?.user.id ?? null) : null);
    const shown = { ...view, baseUrl: config.externalUrl };
    const day = today();
    return rows.map((row) => presentIssue(row, relations, shown, day));
  }

  /** The issue named by the path, if the actor may read it; the platform's record-not-found 404 otherwise. */
  async function requireIssue(req: FastifyRequest, iid: number, message = '404 Not found'): Promise<IssueRow> {
    const project = loadedProject(req);
    const issue = await findIssueByIid(db, project.row.id, iid);
    if (!issue || !(await canReadIssue(db, req.actor, issue))) throw apiError(404, message);
    return issue;
  }

  function powers(req: FastifyRequest, access: IssueAccess): IssuePowers {
    const project = loadedProject(req);
    const scope = projectLabelScope(project.row, project.namespace);
    return {
      admin: access.admin,
      owner: req.actor?.isAdmin === true || project.access >= ACCESS.OWNER,
      labelScope: scope,
      createLabels: project.can.has('admin_label'),
      milestone: (handle, id) => usableMilestone(handle, scope, id),
      assignable: (handle, ids) => assignableUsers(handle, project.row, ids),
    };
  }

  function changesOf(body: typeof UpdateIssueBody.static | typeof CreateIssueBody.static): IssueChanges {
    const assigneeIds = body.assignee_ids ?? (body.assignee_id !== undefined ? [body.assignee_id] : undefined);
    return {
      title: body.title,
      description: body.description,
      assigneeIds,
      milestoneId: body.milestone_id,
      labels: body.labels?.flatMap((l) => l.split(',')),
      addLabels: body.add_labels?.flatMap((l) => l.split(',')),
      removeLabels: body.remove_labels?.flatMap((l) => l.split(',')),
      dueDate: body.due_date,
      confidential: body.confidential,
      discussionLocked: body.discussion_locked,
      weight: body.weight,
      issueType: body.issue_type,
      stateEvent: 'state_event' in body ? body.state_event : undefined,
    };
  }

  const list = { 200: Type.Array(IssueEntity) };

  api.get('/projects/:id/issues', { schema: { params: ProjectParams, querystring: ListIssuesQuery, response: list }, config: OPTIONAL, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    const q = filterIssues(projectIssues(db, req.actor, project.row.id), req.query, req.actor, api.deps.now(), 'all');
    const rows = await paginate(req, reply, orderIssues(q, req.query.order_by, req.query.sort), { countParts: projectListCount(db, req.actor, project.row.id, q, req.query) });
    return present(req, rows, { fromProjectId: project.row.id, withLabelsDetails: req.query.with_labels_details ?? false, withSubscribed: false });
  });

  api.get('/projects/:id/issues/:issue_iid', { schema: { params: IssueParams, response: { 200: IssueEntity } }, config: OPTIONAL, preHandler: loadProject('read_project') }, async (req) => {
    const issue = await requireIssue(req, req.params.issue_iid);
    return (await present(req, [issue], { fromProjectId: issue.project_id, withLabelsDetails: false, withSubscribed: true }))[0];
  });

  api.post('/projects/:id/issues', { schema: { params: ProjectParams, body: CreateIssueBody, response: { 201: IssueEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    const access = await issueAccess(req, project);
    if (!access.create) throw forbidden();
    const { title, iid, created_at: createdAt } = req.body;
    const issue = await createIssue(serviceContext(req), project.row.id, { ...changesOf(req.body), title, iid, createdAt }, powers(req, access));
    reply.code(201);
    return (await present(req, [issue], { fromProjectId: issue.project_id, withLabelsDetails: false, withSubscribed: true }))[0];
  });

  api.put('/projects/:id/issues/:issue_iid', { schema: { params: IssueParams, body: UpdateIssueBody, response: { 200: IssueEntity } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req) => {
    const project = loadedProject(req);
    const issue = await requireIssue(req, req.params.issue_iid);
    const access = await issueAccess(req, project);
    const userId = req.actor!.user.id;
    const own = issue.author_id === userId || (await db.selectFrom('issue_assignees').select('user_id').where('issue_id', '=', issue.id).where('user_id', '=', userId).executeTakeFirst()) !== undefined;
    if (!(access.admin || (own && access.create))) throw forbidden();
    const updated = await updateIssue(serviceContext(req), issue, { ...changesOf(req.body), updatedAt: req.body.updated_at }, powers(req, access));
    return (await present(req, [updated], { fromProjectId: updated.project_id, withLabelsDetails: false, withSubscribed: true }))[0];
  });

  api.delete('/projects/:id/issues/:issue_iid', { schema: { params: IssueParams, response: { 204: NoContent } }, config: REQUIRED, preHandler: loadProject('read_project') }, async (req, reply) => {
    const project = loadedProject(req);
    const issue = await requireIssue(req, req.params.issue_iid, '404 Issue Not Found');
    if (!(await issueAccess(req, project)).destroy) throw forbidden();
    await deleteIssue(serviceContext(req), issue);
    return reply.code(204).send();
  });

  api.get('/issues', { schema: { querystring: ListIssuesQuery, response: list }, config: OPTIONAL }, async (req, reply) => {
    const scope = req.query.scope ?? 'created_by_me';
    if (!req.actor && scope !== 'all') throw unauthorized();
    const q = filterIssues(readableIssues(db, req.actor), { ...req.query, scope, non_archived: req.query.non_archived ?? true }, req.actor, api.deps.now(), 'created_by_me');
    const rows = await paginate(req, reply, orderIssues(q, req.query.order_by, req.query.sort));
    return present(req, rows, { fromProjectId: null, withLabelsDetails: req.query.with_labels_details ?? false, withSubscribed: false });
  });

  api.get('/issues/:id', { schema: { params: IssueIdParams, response: { 200: IssueEntity } }, config: REQUIRED }, async (req) => {
    if (!req.actor!.isAdmin) throw forbidden();
    const issue = await db.selectFrom('issues').selectAll().where('id', '=', req.params.id).executeTakeFirst();
    if (!issue) throw notFound();
    return (await present(req, [issue], { fromProjectId: issue.project_id, withLabelsDetails: false, withSubscribed: true }))[0];
  });

  api.get('/groups/:id/issues', { schema: { params: ProjectParams, querystring: ListIssuesQuery, response: list }, config: OPTIONAL, preHandler: loadGroup('read_group') }, async (req, reply) => {
    const group = loadedGroup(req);
    const q = filterIssues(groupIssues(db, req.actor, group.row.traversal_path), { ...req.query, non_archived: req.query.non_archived ?? true }, req.actor, api.deps.now(), 'all');
    const rows = await paginate(req, reply, orderIssues(q, req.query.order_by, req.query.sort));
    return present(req, rows, { fromProjectId: null, fromGroupId: group.row.id, withLabelsDetails: req.query.with_labels_details ?? false, withSubscribed: false });
  });
};
