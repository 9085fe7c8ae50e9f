// A project's clusters (spec Part 1 §4.3; the platform's project clusters API, 14.x), for
// Maintainers and up: a project the caller may not see is 404; one they see without the role, 403.
// A cluster is looked for before the caller's role is checked, as the platform finds it before it
// authorizes, so a cluster the project does not have is the record-not-found 404 for anyone who
// sees the project. Clusters of an archived project may still be read and added, not changed.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ProjectAbility } from '../../core/access/abilities.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { ClusterRow } from '../../db/schema.ts';
import { loadProjectView } from '../projects/projects.finder.ts';
import { presentProject } from '../projects/projects.presenter.ts';
import { findProjectCluster, loadClusterView, projectClusters } from './clusters.finder.ts';
import { presentCluster, presentClusterProject } from './clusters.presenter.ts';
import { ClusterEntity, ClusterParams, ClusterProjectEntity, CreateClusterBody, ListClustersQuery, ProjectParams, UpdateClusterBody } from './clusters.schemas.ts';
import { createCluster, deleteCluster, updateCluster } from './clusters.service.ts';

const SIGNED_IN = { auth: 'required' } as const;

export const clusterRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const deps = api.deps;
  const { db, config } = deps;
  const visible = loadProject('read_project');

  /** The project's cluster, then the ability the route asks of the project. */
  async function requireCluster(req: FastifyRequest, clusterId: number, ability: ProjectAbility): Promise<ClusterRow> {
    const project = loadedProject(req);
    const cluster = await findProjectCluster(db, project.row.id, clusterId);
    if (!cluster) throw apiError(404, '404 Not found');
    if (!project.can.has(ability)) throw forbidden();
    return cluster;
  }

  /** Entities::ClusterProject: the cluster with its project in the simple form. */
  async function withProject(req: FastifyRequest, cluster: ClusterRow) {
    const { row } = loadedProject(req);
    const [view, projectView] = await Promise.all([loadClusterView(db, config.externalUrl, [cluster]), loadProjectView(deps, req.actor, [row], { form: 'simple' })]);
    return presentClusterProject(cluster, view, presentProject(row, projectView, 'simple'));
  }

  api.get(
    '/projects/:id/clusters',
    { schema: { params: ProjectParams, querystring: ListClustersQuery, response: { 200: Type.Array(ClusterEntity) } }, config: SIGNED_IN, preHandler: loadProject('read_cluster') },
    async (req, reply) => {
      const clusters = await paginate(req, reply, projectClusters(db, loadedProject(req).row.id));
      const view = await loadClusterView(db, config.externalUrl, clusters);
      return clusters.map((cluster) => presentCluster(cluster, view));
    },
  );

  api.get(
    '/projects/:id/clusters/:cluster_id',
    { schema: { params: ClusterParams, response: { 200: ClusterProjectEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req) => withProject(req, await requireCluster(req, req.params.cluster_id, 'read_cluster')),
  );

  api.post(
    '/projects/:id/clusters/user',
    { schema: { params: ProjectParams, body: CreateClusterBody, response: { 201: ClusterProjectEntity } }, config: SIGNED_IN, preHandler: loadProject('add_cluster') },
    async (req, reply) => {
      const cluster = await createCluster(serviceContext(req), loadedProject(req).row, req.body);
      return reply.code(201).send(await withProject(req, cluster));
    },
  );

  api.put(
    '/projects/:id/clusters/:cluster_id',
    { schema: { params: ClusterParams, body: UpdateClusterBody, response: { 200: ClusterProjectEntity } }, config: SIGNED_IN, preHandler: visible },
    async (req) => {
      const cluster = await requireCluster(req, req.params.cluster_id, 'update_cluster');
      return withProject(req, await updateCluster(serviceContext(req), loadedProject(req).row, cluster, req.body));
    },
  );

  api.delete(
    '/projects/:id/clusters/:cluster_id',
    { schema: { params: ClusterParams, response: { 204: NoContent } }, config: SIGNED_IN, preHandler: visible },
    async (req, reply) => {
      const cluster = await requireCluster(req, req.params.cluster_id, 'admin_cluster');
      checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(cluster.updated_at));
      await deleteCluster(serviceContext(req), cluster);
      return reply.code(204).send();
    },
  );
};
