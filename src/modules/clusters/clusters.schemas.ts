// Project clusters (spec Part 1 §2.8, §4.3; the platform's project clusters API, 14.x): the entity,
// its form with the project (one cluster, creation, update), and the parameters of every route.
// The service token is a parameter only: no entity shows it.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { ProjectIdentityEntity, ProjectSimpleEntity } from '../projects/projects.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const AUTHORIZATION_TYPES = ['rbac', 'abac', 'unknown_authorization'] as const;
export type AuthorizationType = (typeof AUTHORIZATION_TYPES)[number];
export const PROVIDER_TYPES = ['user', 'gcp', 'aws'] as const;

const PlatformKubernetesEntity = Entity({
  api_url: Type.String(),
  namespace: Nullable(Type.String()),
  authorization_type: Literals(AUTHORIZATION_TYPES),
  ca_cert: Nullable(Type.String()),
});

const clusterFields = {
  id: Type.Integer(),
  name: Type.String(),
  created_at: Timestamp,
  /** Left out when unset (§2.8). */
  domain: Type.Optional(Type.String()),
  enabled: Type.Boolean(),
  managed: Type.Boolean(),
  provider_type: Literals(PROVIDER_TYPES),
  platform_type: Type.Literal('kubernetes'),
  environment_scope: Type.String(),
  cluster_type: Type.Literal('project_type'),
  /** Who added it; null once their account is gone. */
  user: Nullable(Entity(userBasicFields)),
  platform_kubernetes: PlatformKubernetesEntity,
  management_project: Nullable(ProjectIdentityEntity),
};

/** Entities::Cluster: the list form. */
export const ClusterEntity = Entity(clusterFields);
export type Cluster = Static<typeof ClusterEntity>;

/** Entities::ClusterProject: one cluster, a creation, an update; with its project (BasicProjectDetails). */
export const ClusterProjectEntity = Entity({ ...clusterFields, project: ProjectSimpleEntity });
export type ClusterProject = Static<typeof ClusterProjectEntity>;

export const ProjectParams = Params({ id: IdOrPath });
export const ClusterParams = Params({ id: IdOrPath, cluster_id: Type.Integer() });
export const ListClustersQuery = Params({ ...PageParams });

const managementProjectId = Type.Optional(Nullable(Type.Integer()));

export const CreateClusterBody = Params({
  name: Type.String(),
  enabled: Type.Optional(Bool({ default: true })),
  domain: Type.Optional(Type.String()),
  environment_scope: Type.Optional(Type.String({ default: '*' })),
  management_project_id: managementProjectId,
  managed: Type.Optional(Bool({ default: true })),
  platform_kubernetes_attributes: Params({
    api_url: Type.String({ 'x-blank': false }),
    token: Type.String(),
    ca_cert: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    authorization_type: Type.Optional(OneOf(AUTHORIZATION_TYPES, { default: 'rbac' })),
  }),
});
export type CreateClusterBody = Static<typeof CreateClusterBody>;

/** The same fields, all optional; the authorization type is set once, when the cluster is added. */
export const UpdateClusterBody = Params({
  name: Type.Optional(Type.String()),
  domain: Type.Optional(Type.String()),
  environment_scope: Type.Optional(Type.String()),
  management_project_id: managementProjectId,
  enabled: Type.Optional(Bool()),
  managed: Type.Optional(Bool()),
  platform_kubernetes_attributes: Type.Optional(
    Params({
      api_url: Type.Optional(Type.String()),
      token: Type.Optional(Type.String()),
      ca_cert: Type.Optional(Type.String()),
      namespace: Type.Optional(Type.String()),
    }),
  ),
});
export type UpdateClusterBody = Static<typeof UpdateClusterBody>;
