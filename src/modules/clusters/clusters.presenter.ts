// Pure row → entity functions for clusters. The token is never shown; a domain that is not set is
// left out; the platform's type and the cluster's kind are the only ones a project cluster has.
import type { ClusterRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { presentProjectIdentity } from '../projects/projects.presenter.ts';
import type { ProjectSimple } from '../projects/projects.schemas.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import type { AuthorizationType, Cluster, ClusterProject } from './clusters.schemas.ts';

export type ClusterUser = Pick<UserRow, 'id' | 'username' | 'name' | 'state'>;
export type ManagementProject = Pick<ProjectRow, 'id' | 'description' | 'name' | 'name_with_namespace' | 'path' | 'full_path' | 'created_at'>;

export interface ClusterView {
  baseUrl: string;
  users: ReadonlyMap<number, ClusterUser>;
  managementProjects: ReadonlyMap<number, ManagementProject>;
}

export function presentCluster(row: ClusterRow, view: ClusterView): Cluster {
  const user = row.user_id === null ? undefined : view.users.get(row.user_id);
  const management = row.management_project_id === null ? undefined : view.managementProjects.get(row.management_project_id);
  return {
    id: row.id,
    name: row.name,
    created_at: row.created_at,
    domain: row.domain ?? undefined,
    enabled: row.enabled,
    managed: row.managed,
    provider_type: row.provider_type as Cluster['provider_type'],
    platform_type: 'kubernetes',
    environment_scope: row.environment_scope,
    cluster_type: 'project_type',
    user: user ? userBasicFields(user, view.baseUrl) : null,
    platform_kubernetes: {
      api_url: row.api_url,
      namespace: row.namespace,
      authorization_type: row.authorization_type as AuthorizationType,
      ca_cert: row.ca_cert,
    },
    management_project: management ? presentProjectIdentity(management) : null,
  };
}

export function presentClusterProject(row: ClusterRow, view: ClusterView, project: ProjectSimple): ClusterProject {
  return { ...presentCluster(row, view), project };
}
