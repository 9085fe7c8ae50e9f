// Groups: list, show, create, update, delete, subgroups and descendant groups, custom attributes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { globalAbilities } from '../../core/access/abilities.ts';
import { requireUser } from '../../core/access/guards.ts';
import { accessToGroup, findGroup, loadGroup, loadedGroup } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { type OffsetOptions, paginate, paginateWithKeyset } from '../../core/pagination.ts';
import { AcceptedEntity } from '../../core/schema.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { loadNamespaceSettings } from '../../domain/settings/namespace-settings.ts';
import { groupProjectsOf, loadProjectView, visibleProjects } from '../projects/projects.finder.ts';
import { presentProjects } from '../projects/projects.presenter.ts';
import type { Project } from '../projects/projects.schemas.ts';
import { loadCustomAttributes } from '../custom-attributes/custom-attributes.finder.ts';
import { customAttributeRoutes } from '../custom-attributes/custom-attributes.routes.ts';
import { type GroupScope, findGroups, loadGroupStatistics, similarityOrder } from './groups.finder.ts';
import { type GroupView, presentGroup, presentGroupDetail } from './groups.presenter.ts';
import { CreateGroupBody, GroupDetailEntity, GroupEntity, GroupIdParams, ListGroupsQuery, ShowGroupQuery, UpdateGroupBody } from './groups.schemas.ts';
import { createGroup, deleteGroup, ensureRunnersToken, updateGroup } from './groups.service.ts';

const SIGNED_IN = { auth: 'required' } as const;
const ANYONE = { auth: 'optional' } as const;
const groups = { 200: Type.Array(GroupEntity) };

/** The group detail answer lists at most this many of the group's projects. */
const DETAIL_PROJECTS_LIMIT = 100;

export const groupRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;

  /**
   * One page of groups in the order asked for. Only GET /groups for anonymous callers offers keyset
   * pages (by name ascending) and caps offsets; everywhere else a request for keyset pages gets
   * offset pages, as on the platform.
   */
  async function pageOfGroups(req: FastifyRequest, reply: FastifyReply, q: ListGroupsQuery, scope: GroupScope) {
    const actor = req.actor;
    const strategies = !actor && !scope.parent;
    const options: OffsetOptions = strategies ? { offsetCapType: 'Group' } : { keyset: 'ignore' };
    const query = findGroups(db, actor, q, deps.now(), scope);
    const search = q.search?.trim();
    if (q.order_by === 'similarity' && search) return paginate(req, reply, similarityOrder(query, search), options);
    const column = q.order_by === 'similarity' ? 'name' : (q.order_by ?? 'name');
    const sort = q.order_by === 'similarity' ? 'asc' : (q.sort ?? 'asc');
    if (column === 'name' && sort === 'asc') {
      return paginateWithKeyset(req, reply, query, { column: 'namespaces.name', key: 'name', direction: 'asc', idColumn: 'namespaces.id', idKey: 'id' }, options);
    }
    // The id breaks ties in ascending order whatever the sort, as on the platform.
    const ordered = query.orderBy(`namespaces.${column}`, sort).orderBy('namespaces.id', column === 'id' ? sort : 'asc');
    return paginate(req, reply, ordered, options);
  }

  /** What a page of groups needs beyond its rows: custom attributes and statistics, for administrators who ask. */
  async function listView(rows: NamespaceRow[], actor: Actor | null, q: { with_custom_attributes?: boolean; statistics?: boolean }): Promise<GroupView> {
    const admin = actor?.isAdmin ?? false;
    const ids = rows.map((r) => r.id);
    const [settings, instance, customAttributes, statistics] = await Promise.all([
      loadNamespaceSettings(db, ids),
      applicationSettings(db),
      admin && q.with_custom_attributes ? loadCustomAttributes(db, 'group', ids) : undefined,
      admin && q.statistics ? loadGroupStatistics(db, ids) : undefined,
    ]);
    return { baseUrl: config.externalUrl, settings, instance, customAttributes, statistics };
  }

  async function listGroups(req: FastifyRequest, reply: FastifyReply, q: ListGroupsQuery, scope: GroupScope) {
    const rows = await pageOfGroups(req, reply, q, scope);
    const view = await listView(rows, req.actor, q);
    return rows.map((row) => presentGroup(row, view));
  }

  /** The group's own projects the caller may see, newest first, in the full project form. */
  async function projectsOf(group: NamespaceRow, actor: Actor | null): Promise<Project[]> {
    const rows = await groupProjectsOf(visibleProjects(db, actor, {}), group, false).orderBy('projects.id', 'desc').limit(DETAIL_PROJECTS_LIMIT).execute();
    return presentProjects(rows, await loadProjectView(deps, actor, rows), 'full') as Project[];
  }

  async function detail(group: NamespaceRow, actor: Actor | null, options: { runnersToken?: string | null; withCustomAttributes?: boolean } = {}) {
    const view = await listView([group], actor, { with_custom_attributes: options.withCustomAttributes });
    return presentGroupDetail(group, view, { projects: await projectsOf(group, actor), runnersToken: options.runnersToken ?? null });
  }

  api.get('/groups', { schema: { querystring: ListGroupsQuery, response: groups }, config: ANYONE }, (req, reply) => listGroups(req, reply, req.query, {}));

  api.post('/groups', { schema: { body: CreateGroupBody, response: { 201: GroupDetailEntity } }, config: SIGNED_IN }, async (req, reply) => {
    const actor = requireUser(req);
    const { body } = req;
    let parent: NamespaceRow | null = null;
    if (body.parent_id !== undefined) {
      parent = await findGroup(req, String(body.parent_id));
      if (!parent) throw notFound('Group');
      const { can } = await accessToGroup(req, parent);
      if (!can.has('read_group')) throw notFound('Group');
      if (!can.has('create_subgroup')) throw forbidden();
    } else if (!globalAbilities(actor).has('create_group')) {
      throw forbidden();
    }
    const group = await createGroup(serviceContext(req), body, parent);
    reply.code(201);
    return detail(group, actor);
  });

  const byId = { params: GroupIdParams };

  api.get(
    '/groups/:id',
    { schema: { ...byId, querystring: ShowGroupQuery, response: { 200: Type.Union([GroupDetailEntity, GroupEntity]) } }, config: ANYONE, preHandler: loadGroup('read_group') },
    async (req) => {
      const q = req.query;
      const { row, can } = loadedGroup(req);
      const withCustomAttributes = q.with_custom_attributes === true;
      if (q.with_projects === false) return presentGroup(row, await listView([row], req.actor, { with_custom_attributes: withCustomAttributes }));
      const runnersToken = can.has('admin_group') ? await ensureRunnersToken(serviceContext(req), row) : null;
      return detail(row, req.actor, { runnersToken, withCustomAttributes });
    },
  );

  api.put('/groups/:id', { schema: { ...byId, body: UpdateGroupBody, response: { 200: GroupDetailEntity } }, config: SIGNED_IN, preHandler: loadGroup('admin_group') }, async (req) => {
    const { row } = loadedGroup(req);
    const parent = row.parent_id === null ? null : await findGroup(req, String(row.parent_id));
    const administersParent = parent !== null && (await accessToGroup(req, parent)).can.has('admin_group');
    const updated = await updateGroup(serviceContext(req), row, req.body, { parent, administersParent });
    return detail(updated, req.actor);
  });

  api.delete('/groups/:id', { schema: { ...byId, response: { 202: AcceptedEntity } }, config: SIGNED_IN, preHandler: loadGroup('admin_group') }, async (req, reply) => {
    const { row } = loadedGroup(req);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(row.updated_at));
    await deleteGroup(serviceContext(req), row);
    return reply.code(202).send({ message: '202 Accepted' });
  });

  const subgroupsOptions = { schema: { ...byId, querystring: ListGroupsQuery, response: groups }, config: ANYONE, preHandler: loadGroup('read_group') };
  api.get('/groups/:id/subgroups', subgroupsOptions, (req, reply) => listGroups(req, reply, req.query, { parent: loadedGroup(req).row }));
  api.get('/groups/:id/descendant_groups', subgroupsOptions, (req, reply) => listGroups(req, reply, req.query, { parent: loadedGroup(req).row, descendants: true }));

  // Custom attributes: the group must be visible (404), then the caller an administrator (403).
  customAttributeRoutes(api, {
    subject: 'group',
    path: '/groups/:id',
    id: GroupIdParams.properties.id,
    load: async (req) => {
      await loadGroup('read_group')(req);
      return loadedGroup(req).row.id;
    },
  });
};

