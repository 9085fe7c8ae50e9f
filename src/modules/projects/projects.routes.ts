// Projects: spec Part 2 §4.1 (lists), and the single-project routes of the platform's API
// (show, create, update, delete, archive, star, users, custom attributes).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin } from '../../core/access/guards.ts';
import { findProject, loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound, paramError } from '../../core/errors.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { KEYSET_UNAVAILABLE, paginate, paginateByKeysetFilter, wantsKeyset } from '../../core/pagination.ts';
import { AcceptedEntity, NoContent } from '../../core/schema.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { loadCustomAttributes } from '../custom-attributes/custom-attributes.finder.ts';
import { customAttributeRoutes } from '../custom-attributes/custom-attributes.routes.ts';
import { presentUserBasic } from '../users/users.presenter.ts';
import { UserBasicEntity } from '../users/users.schemas.ts';
import {
  type ProjectsQuery,
  type ViewOptions,
  countPartsOf,
  effectiveOrder,
  filterProjects,
  findProjectById,
  findUserByIdOrUsername,
  groupProjectsOf,
  loadProjectView,
  orderProjects,
  personalProjectsOf,
  projectUsers,
  userSearch,
  visibleProjects,
} from './projects.finder.ts';
import { type ProjectForm, presentProject, presentProjects } from './projects.presenter.ts';
import {
  CreateProjectBody,
  CreateUserProjectBody,
  CreateUserProjectParams,
  GroupProjectsQuery,
  ListProjectsQuery,
  type Project,
  ProjectEntity,
  ProjectIdParams,
  ProjectSimpleEntity,
  ProjectUsersQuery,
  ShowProjectQuery,
  UpdateProjectBody,
  UserProjectsParams,
  ProjectWithAccessEntity,
} from './projects.schemas.ts';
import {
  createProject,
  deleteProject,
  setArchived,
  starProject,
  unstarProject,
  updateProject,
} from './projects.service.ts';

const SIGNED_IN = { auth: 'required' } as const;
const ANYONE = { auth: 'optional' } as const;

/** Lists answer one form for the whole page: with permissions, full, or simple. */
const projectPage = { 200: Type.Array(Type.Union([ProjectWithAccessEntity, ProjectEntity, ProjectSimpleEntity])) };
/** What writes answer: the full form. */
const fullProject = { 200: ProjectEntity };
const createdProject = { 201: ProjectEntity };

export const projectRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db } = deps;

  /** What the presenter needs for these rows, with their custom attributes when asked for. */
  async function viewOf(req: FastifyRequest, rows: ProjectRow[], options: ViewOptions & { customAttributes?: boolean }) {
    const [view, customAttributes] = await Promise.all([
      loadProjectView(deps, req.actor, rows, options),
      options.customAttributes ? loadCustomAttributes(db, 'project', rows.map((r) => r.id)) : undefined,
    ]);
    if (customAttributes) view.customAttributes = customAttributes;
    return view;
  }

  /** One project for the request's actor in the full form, which writes answer. */
  async function presentFull(req: FastifyRequest, row: ProjectRow, options: { adminFields?: boolean } = {}): Promise<Project> {
    return presentProject(row, await viewOf(req, [row], { form: 'full' }), 'full', options.adminFields);
  }

  /**
   * Orders, paginates and presents a list of the `visible` projects narrowed to `query`: offset
   * pagination capped for type Project, or the classic keyset (order_by=id only).
   */
  async function list(
    req: FastifyRequest,
    reply: FastifyReply,
    visible: ProjectsQuery,
    query: ProjectsQuery,
    q: ListProjectsQuery,
    forms: { anonymous: ProjectForm; signedIn: ProjectForm; keyset: boolean },
  ) {
    const actor = req.actor;
    const admin = actor?.isAdmin ?? false;
    const sort = q.sort ?? 'desc';
    const orderBy = effectiveOrder(q, actor);
    const ordered = orderProjects(query, orderBy, sort, actor, q.search ?? '');

    let rows: ProjectRow[];
    if (wantsKeyset(req)) {
      if (!forms.keyset || orderBy !== 'id') throw paramError(KEYSET_UNAVAILABLE, 405);
      rows = await paginateByKeysetFilter(req, reply, ordered, { param: 'id', key: 'id', direction: sort });
    } else {
      const countParts = countPartsOf(db, actor, q, visible, ordered);
      rows = await paginate(req, reply, ordered, { ...(forms.keyset ? { offsetCapType: 'Project' } : {}), countParts });
    }
    const form: ProjectForm = q.simple ? 'simple' : actor ? forms.signedIn : forms.anonymous;
    const view = await viewOf(req, rows, { statistics: q.statistics, customAttributes: admin && q.with_custom_attributes, form });
    return presentProjects(rows, view, form);
  }

  // ---- Lists ------------------------------------------------------------------------------

  api.get('/projects', { schema: { querystring: ListProjectsQuery, response: projectPage }, config: ANYONE }, async (req, reply) => {
    const q = req.query;
    const admin = req.actor?.isAdmin ?? false;
    const visible = visibleProjects(db, req.actor, q);
    const query = filterProjects(visible, req.actor, q, { admin });
    return list(req, reply, visible, query, q, { anonymous: 'simple', signedIn: 'with_access', keyset: true });
  });

  api.get('/users/:user_id/projects', { schema: { params: UserProjectsParams, querystring: ListProjectsQuery, response: projectPage }, config: ANYONE }, async (req, reply) => {
    const { user_id: ref } = req.params;
    const q = req.query;
    const user = await findUserByIdOrUsername(db, ref);
    if (!user) throw notFound('User');
    const admin = req.actor?.isAdmin ?? false;
    const visible = visibleProjects(db, req.actor, q);
    const query = filterProjects(personalProjectsOf(visible, user.id), req.actor, q, { admin });
    return list(req, reply, visible, query, q, { anonymous: 'simple', signedIn: 'with_access', keyset: true });
  });

  api.get(
    '/groups/:id/projects',
    { schema: { params: ProjectIdParams, querystring: GroupProjectsQuery, response: projectPage }, config: ANYONE, preHandler: loadGroup('read_group') },
    async (req, reply) => {
      const q = req.query;
      const admin = req.actor?.isAdmin ?? false;
      const visible = visibleProjects(db, req.actor, q);
      const query = filterProjects(groupProjectsOf(visible, loadedGroup(req).row, q.include_subgroups ?? false), req.actor, q, { admin });
      // The platform answers a group's projects in the full form without permissions, to everyone,
      // with offset pagination only.
      return list(req, reply, visible, query, q, { anonymous: 'full', signedIn: 'full', keyset: false });
    },
  );

  // ---- Create -----------------------------------------------------------------------------

  api.post('/projects', { schema: { body: CreateProjectBody, response: createdProject }, config: SIGNED_IN }, async (req, reply) => {
    const row = await createProject(serviceContext(req), req.body);
    reply.code(201);
    return presentFull(req, row, { adminFields: true });
  });

  api.post('/projects/user/:user_id', { schema: { params: CreateUserProjectParams, body: CreateUserProjectBody, response: createdProject }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const user = await findUserByIdOrUsername(db, String(req.params.user_id));
    if (!user) throw notFound('User');
    const row = await createProject(serviceContext(req), req.body, { asUser: user });
    reply.code(201);
    return presentFull(req, row, { adminFields: true });
  });

  // ---- One project ------------------------------------------------------------------------

  api.get(
    '/projects/:id',
    { schema: { params: ProjectIdParams, querystring: ShowProjectQuery, response: { 200: Type.Union([ProjectWithAccessEntity, ProjectSimpleEntity]) } }, config: ANYONE, preHandler: loadProject('read_project') },
    async (req) => {
      const q = req.query;
      const { row } = loadedProject(req);
      const options = { statistics: q.statistics, license: q.license, customAttributes: (req.actor?.isAdmin ?? false) && q.with_custom_attributes };
      // Signed-in callers see the full form with their permissions; anonymous ones the simple form.
      if (!req.actor) return presentProject(row, await viewOf(req, [row], { ...options, form: 'simple' }), 'simple');
      return presentProject(row, await viewOf(req, [row], { ...options, form: 'with_access' }), 'with_access', true);
    },
  );

  api.put('/projects/:id', { schema: { params: ProjectIdParams, body: UpdateProjectBody, response: fullProject }, config: SIGNED_IN, preHandler: loadProject('admin_project') }, async (req) => {
    const row = await updateProject(serviceContext(req), loadedProject(req), req.body);
    return presentFull(req, row, { adminFields: true });
  });

  api.delete('/projects/:id', { schema: { params: ProjectIdParams, response: { 202: AcceptedEntity } }, config: SIGNED_IN, preHandler: loadProject('remove_project') }, async (req, reply) => {
    const row = loadedProject(req).row;
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(row.updated_at));
    await deleteProject(serviceContext(req), row);
    return reply.code(202).send({ message: '202 Accepted' });
  });

  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    api.post(`/projects/:id/${action}`, { schema: { params: ProjectIdParams, response: createdProject }, config: SIGNED_IN, preHandler: loadProject('archive_project') }, async (req, reply) => {
      const row = await setArchived(serviceContext(req), loadedProject(req).row, archived);
      reply.code(201);
      return presentFull(req, row);
    });
  }

  // 201 with the project when the star changed, 304 (no body) when it already was so.
  for (const [action, change] of [['star', starProject], ['unstar', unstarProject]] as const) {
    const options = { schema: { params: ProjectIdParams, response: { ...createdProject, 304: NoContent } }, config: SIGNED_IN, preHandler: loadProject('read_project') };
    api.post(`/projects/:id/${action}`, options, async (req, reply) => {
      const { id } = loadedProject(req).row;
      if (!(await change(serviceContext(req), id))) return reply.code(304).send();
      const row = (await findProjectById(db, id)) as ProjectRow;
      reply.code(201);
      return presentFull(req, row);
    });
  }

  api.get(
    '/projects/:id/users',
    { schema: { params: ProjectIdParams, querystring: ProjectUsersQuery, response: { 200: Type.Array(UserBasicEntity) } }, config: ANYONE, preHandler: loadProject('read_project') },
    async (req, reply) => {
      const q = req.query;
      let query = projectUsers(db, loadedProject(req).row.id);
      if (q.skip_users?.length) query = query.where('users.id', 'not in', q.skip_users);
      const search = q.search?.trim() ? userSearch(q.search) : null;
      const matching = search?.where;
      if (matching) query = query.where(() => matching);
      const ordered = search ? query.orderBy(search.rank).orderBy('users.name').orderBy('users.id') : query.orderBy('users.id');
      const rows = await paginate(req, reply, ordered);
      return rows.map((u) => presentUserBasic(u, { baseUrl: deps.config.externalUrl }));
    },
  );

  // ---- Custom attributes (administrators) ---------------------------------------------------
  // As on the platform, the project is looked up (whatever its visibility) before the caller is
  // checked: a missing project is 404 for everyone, anyone but an administrator gets 403.
  customAttributeRoutes(api, {
    subject: 'project',
    path: '/projects/:id',
    id: ProjectIdParams.properties.id,
    load: async (req, id) => {
      const found = await findProject(req, String(id));
      if (!found) throw notFound('Project');
      return found.row.id;
    },
  });
};
