// The labels of projects and groups (the platform's labels, group labels and subscriptions APIs,
// 14.x). Every route needs a signed-in caller. Reading needs read_label (whoever reads the project
// or group); creating and updating need admin_label on the project or group (Reporter and above),
// and changing a label's own fields or deleting it needs admin_label where the label lives, so
// that a project's reporters do not change its group's labels. A label is named by id or title.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type LoadedGroup, type LoadedProject, accessToGroup, accessToProject, findGroup, findProject, loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { requireActor, serviceContext } from '../../core/context.ts';
import { apiError, conflict, forbidden, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { requireOneOf } from '../../core/params.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { NamespaceRow } from '../../db/schema.ts';
import {
  type LabelParent,
  type LabelScope,
  NARROW_SCOPE,
  type StoredLabel,
  availableLabels,
  findLabel,
  listLabels,
  loadLabelExtras,
  titleInUse,
} from './labels.finder.ts';
import { presentGroupLabel, presentProjectLabel } from './labels.presenter.ts';
import {
  CreateGroupLabelBody,
  CreateProjectLabelBody,
  DeleteNamedProjectLabelBody,
  GroupLabelEntity,
  LabelParams,
  ListGroupLabelsQuery,
  ListProjectLabelsQuery,
  NameBody,
  ParentParams,
  ProjectLabelEntity,
  ShowGroupLabelQuery,
  ShowProjectLabelQuery,
  SubscribableParams,
  type UpdateLabelBody,
  UpdateGroupLabelBody,
  UpdateNamedGroupLabelBody,
  UpdateNamedProjectLabelBody,
  UpdateProjectLabelBody,
} from './labels.schemas.ts';
import { asksLabelChange, createLabel, deleteLabel, promoteLabel, setPriority, setSubscription, updateLabel } from './labels.service.ts';

const SIGNED_IN = { auth: 'required' } as const;
const PROMOTE_FAILED = 'Failed to promote project label to group label';
const PROJECT_UPDATE_KEYS = ['new_name', 'color', 'description', 'priority'];
const GROUP_UPDATE_KEYS = ['new_name', 'color', 'description'];

const scopeOf = (q: { include_ancestor_groups?: boolean; include_descendant_groups?: boolean; only_group_labels?: boolean }): LabelScope => ({
  includeAncestorGroups: q.include_ancestor_groups ?? false,
  includeDescendantGroups: q.include_descendant_groups ?? false,
  onlyGroupLabels: q.only_group_labels ?? false,
});
/** The scope the platform looks labels up in when a route names none (find_label's default). */
const DEFAULT_SCOPE: LabelScope = { includeAncestorGroups: true };
/** The scope a creation's title must be free in (available_labels_for's default). */
const CREATION_SCOPE: LabelScope = { includeAncestorGroups: true, onlyGroupLabels: true };

export const labelRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config, now } = api.deps;

  const projectParent = (project: LoadedProject): LabelParent => ({ project: project.row, namespace: project.namespace });
  const labelsOf = (req: FastifyRequest, parent: LabelParent, scope: LabelScope) => availableLabels(db, req.actor, parent, scope, now());

  async function requireLabel(req: FastifyRequest, parent: LabelParent, scope: LabelScope, idOrTitle: string): Promise<StoredLabel> {
    const label = await findLabel(labelsOf(req, parent, scope), idOrTitle);
    if (!label) throw notFound('Label');
    return label;
  }

  /** The project's group, when it is in one. */
  const projectGroup = (project: LoadedProject): NamespaceRow | null => (project.namespace.type === 'Group' ? project.namespace : null);

  /** Whether the caller may manage the label where it lives: its project, or its group. */
  async function mayAdminLabel(req: FastifyRequest, label: StoredLabel, here: LoadedProject | LoadedGroup): Promise<boolean> {
    if (label.project_id !== null) {
      if ('namespace' in here && here.row.id === label.project_id) return here.can.has('admin_label');
      const found = await findProject(req, String(label.project_id));
      return found !== null && (await accessToProject(req, found.row)).can.has('admin_label');
    }
    if (!('namespace' in here) && here.row.id === label.group_id) return here.can.has('admin_label');
    const group = await findGroup(req, String(label.group_id));
    return group !== null && (await accessToGroup(req, group)).can.has('admin_label');
  }

  async function showProjectLabels(req: FastifyRequest, labels: StoredLabel[], withCounts = false) {
    const extras = await loadLabelExtras(db, req.actor, labels, { projectId: loadedProject(req).row.id, withCounts });
    return labels.map((label) => presentProjectLabel(label, { extras, externalUrl: config.externalUrl }));
  }

  async function showGroupLabels(req: FastifyRequest, labels: StoredLabel[], withCounts = false) {
    const extras = await loadLabelExtras(db, req.actor, labels, { projectId: null, withCounts });
    return labels.map((label) => presentGroupLabel(label, { extras, externalUrl: config.externalUrl }));
  }

  /** Updates the fields given, then (projects only) the priority; a label's own fields need admin_label where it lives. */
  async function update(req: FastifyRequest, here: LoadedProject | LoadedGroup, label: StoredLabel, body: UpdateLabelBody): Promise<StoredLabel> {
    const ctx = serviceContext(req);
    let updated = label;
    if (asksLabelChange(body)) {
      if (!(await mayAdminLabel(req, label, here))) throw forbidden();
      updated = await updateLabel(ctx, label, 'namespace' in here ? projectGroup(here) : null, body);
    }
    if ('namespace' in here && Object.hasOwn(req.rawParams, 'priority')) await setPriority(ctx, here.row.id, label.id, body.priority ?? null);
    return updated;
  }

  async function destroy(req: FastifyRequest, reply: FastifyReply, here: LoadedProject | LoadedGroup, label: StoredLabel) {
    if (!(await mayAdminLabel(req, label, here))) throw forbidden();
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(label.updated_at));
    await deleteLabel(serviceContext(req), label);
    return reply.code(204).send();
  }

  // ---- Projects --------------------------------------------------------------------------------

  const read = loadProject('read_label');
  const write = loadProject('admin_label');
  const projectLabel = { 200: ProjectLabelEntity };

  api.get(
    '/projects/:id/labels',
    { schema: { params: ParentParams, querystring: ListProjectLabelsQuery, response: { 200: Type.Array(ProjectLabelEntity) } }, config: SIGNED_IN, preHandler: read },
    async (req, reply) => {
      const q = req.query;
      const labels = await paginate(req, reply, listLabels(labelsOf(req, projectParent(loadedProject(req)), scopeOf(q)), q.search));
      return showProjectLabels(req, labels, q.with_counts);
    },
  );

  api.get(
    '/projects/:id/labels/:label_id',
    { schema: { params: LabelParams, querystring: ShowProjectLabelQuery, response: projectLabel }, config: SIGNED_IN, preHandler: read },
    async (req) => {
      const label = await requireLabel(req, projectParent(loadedProject(req)), scopeOf(req.query), req.params.label_id);
      return (await showProjectLabels(req, [label]))[0];
    },
  );

  api.post(
    '/projects/:id/labels',
    { schema: { params: ParentParams, body: CreateProjectLabelBody, response: { 201: ProjectLabelEntity } }, config: SIGNED_IN, preHandler: write },
    async (req, reply) => {
      const project = loadedProject(req);
      if (await titleInUse(labelsOf(req, projectParent(project), CREATION_SCOPE), req.body.name)) throw conflict('Label already exists');
      const label = await createLabel(serviceContext(req), { projectId: project.row.id, group: projectGroup(project) }, req.body);
      reply.code(201);
      return (await showProjectLabels(req, [label]))[0];
    },
  );

  const updateProjectLabel = async (req: FastifyRequest, idOrTitle: string, body: UpdateLabelBody) => {
    requireOneOf(req.rawParams, PROJECT_UPDATE_KEYS);
    const project = loadedProject(req);
    const label = await requireLabel(req, projectParent(project), NARROW_SCOPE, idOrTitle);
    return (await showProjectLabels(req, [await update(req, project, label, body)]))[0];
  };

  // Deprecated since 12.4, still served: the label named in the body.
  api.put('/projects/:id/labels', { schema: { params: ParentParams, body: UpdateNamedProjectLabelBody, response: projectLabel }, config: SIGNED_IN, preHandler: write }, async (req) =>
    updateProjectLabel(req, String(req.body.label_id ?? req.body.name), req.body),
  );

  api.put('/projects/:id/labels/:label_id', { schema: { params: LabelParams, body: UpdateProjectLabelBody, response: projectLabel }, config: SIGNED_IN, preHandler: write }, async (req) =>
    updateProjectLabel(req, req.params.label_id, req.body),
  );

  const deleteProjectLabel = async (req: FastifyRequest, reply: FastifyReply, idOrTitle: string) => {
    const project = loadedProject(req);
    return destroy(req, reply, project, await requireLabel(req, projectParent(project), NARROW_SCOPE, idOrTitle));
  };

  api.delete('/projects/:id/labels', { schema: { params: ParentParams, body: DeleteNamedProjectLabelBody, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: read }, async (req, reply) =>
    deleteProjectLabel(req, reply, String(req.body.label_id ?? req.body.name)),
  );

  api.delete('/projects/:id/labels/:label_id', { schema: { params: LabelParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: read }, async (req, reply) =>
    deleteProjectLabel(req, reply, req.params.label_id),
  );

  /** A project label becomes a label of the project's group; managing that group's labels is needed. */
  const promote = async (req: FastifyRequest, idOrTitle: string) => {
    const project = loadedProject(req);
    const group = projectGroup(project);
    if (!group) throw apiError(400, PROMOTE_FAILED);
    if (!(await accessToGroup(req, group)).can.has('admin_label')) throw forbidden();
    const label = await requireLabel(req, projectParent(project), NARROW_SCOPE, idOrTitle);
    if (label.project_id === null) throw apiError(400, PROMOTE_FAILED);
    return (await showGroupLabels(req, [await promoteLabel(serviceContext(req), label, group)]))[0];
  };

  api.put('/projects/:id/labels/promote', { schema: { params: ParentParams, body: NameBody, response: { 200: GroupLabelEntity } }, config: SIGNED_IN, preHandler: read }, async (req) =>
    promote(req, req.body.name),
  );

  api.put('/projects/:id/labels/:label_id/promote', { schema: { params: LabelParams, response: { 200: GroupLabelEntity } }, config: SIGNED_IN, preHandler: read }, async (req) =>
    promote(req, req.params.label_id),
  );

  // ---- Groups ----------------------------------------------------------------------------------

  const readGroup = loadGroup('read_label');
  const writeGroup = loadGroup('admin_label');
  const groupLabel = { 200: GroupLabelEntity };
  const groupParent = (req: FastifyRequest): LabelParent => ({ group: loadedGroup(req).row });

  api.get(
    '/groups/:id/labels',
    { schema: { params: ParentParams, querystring: ListGroupLabelsQuery, response: { 200: Type.Array(GroupLabelEntity) } }, config: SIGNED_IN, preHandler: readGroup },
    async (req, reply) => {
      const q = req.query;
      const labels = await paginate(req, reply, listLabels(labelsOf(req, groupParent(req), scopeOf(q)), q.search));
      return showGroupLabels(req, labels, q.with_counts);
    },
  );

  api.get(
    '/groups/:id/labels/:label_id',
    { schema: { params: LabelParams, querystring: ShowGroupLabelQuery, response: groupLabel }, config: SIGNED_IN, preHandler: readGroup },
    async (req) => (await showGroupLabels(req, [await requireLabel(req, groupParent(req), scopeOf(req.query), req.params.label_id)]))[0],
  );

  api.post(
    '/groups/:id/labels',
    { schema: { params: ParentParams, body: CreateGroupLabelBody, response: { 201: GroupLabelEntity } }, config: SIGNED_IN, preHandler: writeGroup },
    async (req, reply) => {
      if (await titleInUse(labelsOf(req, groupParent(req), CREATION_SCOPE), req.body.name)) throw conflict('Label already exists');
      const label = await createLabel(serviceContext(req), { groupId: loadedGroup(req).row.id }, req.body);
      reply.code(201);
      return (await showGroupLabels(req, [label]))[0];
    },
  );

  const updateGroupLabel = async (req: FastifyRequest, idOrTitle: string, body: UpdateLabelBody) => {
    requireOneOf(req.rawParams, GROUP_UPDATE_KEYS);
    const label = await requireLabel(req, groupParent(req), NARROW_SCOPE, idOrTitle);
    return (await showGroupLabels(req, [await update(req, loadedGroup(req), label, body)]))[0];
  };

  api.put('/groups/:id/labels', { schema: { params: ParentParams, body: UpdateNamedGroupLabelBody, response: groupLabel }, config: SIGNED_IN, preHandler: writeGroup }, async (req) =>
    updateGroupLabel(req, String(req.body.label_id ?? req.body.name), req.body),
  );

  api.put('/groups/:id/labels/:label_id', { schema: { params: LabelParams, body: UpdateGroupLabelBody, response: groupLabel }, config: SIGNED_IN, preHandler: writeGroup }, async (req) =>
    updateGroupLabel(req, req.params.label_id, req.body),
  );

  const deleteGroupLabel = async (req: FastifyRequest, reply: FastifyReply, idOrTitle: string) =>
    destroy(req, reply, loadedGroup(req), await requireLabel(req, groupParent(req), NARROW_SCOPE, idOrTitle));

  api.delete('/groups/:id/labels', { schema: { params: ParentParams, body: NameBody, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: readGroup }, async (req, reply) =>
    deleteGroupLabel(req, reply, req.body.name),
  );

  api.delete('/groups/:id/labels/:label_id', { schema: { params: LabelParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: readGroup }, async (req, reply) =>
    deleteGroupLabel(req, reply, req.params.label_id),
  );

  // ---- Subscriptions: 201 with the label when it changed, 304 without a body when it already was so.

  for (const [action, subscribed] of [['subscribe', true], ['unsubscribe', false]] as const) {
    api.post(
      `/projects/:id/labels/:subscribable_id/${action}`,
      { schema: { params: SubscribableParams, response: { 201: ProjectLabelEntity, 304: NoContent } }, config: SIGNED_IN, preHandler: read },
      async (req, reply) => {
        const project = loadedProject(req);
        const label = await requireLabel(req, projectParent(project), DEFAULT_SCOPE, req.params.subscribable_id);
        const ctx = serviceContext(req);
        if (!(await setSubscription(ctx, label.id, requireActor(ctx).user.id, project.row.id, subscribed))) return reply.code(304).send();
        reply.code(201);
        return (await showProjectLabels(req, [label]))[0];
      },
    );

    api.post(
      `/groups/:id/labels/:subscribable_id/${action}`,
      { schema: { params: SubscribableParams, response: { 201: GroupLabelEntity, 304: NoContent } }, config: SIGNED_IN, preHandler: readGroup },
      async (req, reply) => {
        const label = await requireLabel(req, groupParent(req), DEFAULT_SCOPE, req.params.subscribable_id);
        const ctx = serviceContext(req);
        if (!(await setSubscription(ctx, label.id, requireActor(ctx).user.id, null, subscribed))) return reply.code(304).send();
        reply.code(201);
        return (await showGroupLabels(req, [label]))[0];
      },
    );
  }
};

