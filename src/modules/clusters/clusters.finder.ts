// Reads of a project's clusters, and what their entities show beside their rows (who added them,
// their management projects), loaded once for a whole page.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { ClusterRow, DB } from '../../db/schema.ts';
import type { ClusterUser, ClusterView, ManagementProject } from './clusters.presenter.ts';

/** The project's clusters, oldest first. */
export function projectClusters(db: Kysely<DB>, projectId: number): SelectQueryBuilder<DB, 'clusters', ClusterRow> {
  return db.selectFrom('clusters').selectAll().where('project_id', '=', projectId).orderBy('id');
}

/** One cluster of the project; undefined when the project has no such cluster. */
export function findProjectCluster(db: Kysely<DB>, projectId: number, clusterId: number): Promise<ClusterRow | undefined> {
  return projectClusters(db, projectId).where('id', '=', clusterId).executeTakeFirst();
}

/** Whether another cluster of the project, or of the management project, has this environment scope. */
export async function environmentScopeTaken(
  db: Kysely<DB>,
  scope: { projectId: number; managementProjectId: number | null; environmentScope: string; exceptId: number | null },
): Promise<boolean> {
  const clash = await db
    .selectFrom('clusters')
    .select('id')
    .where('environment_scope', '=', scope.environmentScope)
    .where((eb) =>
      scope.managementProjectId === null
        ? eb('project_id', '=', scope.projectId)
        : eb.or([eb('project_id', '=', scope.projectId), eb('management_project_id', '=', scope.managementProjectId)]),
    )
    .$if(scope.exceptId !== null, (q) => q.where('id', '!=', scope.exceptId as number))
    .executeTakeFirst();
  return clash !== undefined;
}

/** The users and management projects that these clusters show. */
export async function loadClusterView(db: Kysely<DB>, baseUrl: string, rows: readonly ClusterRow[]): Promise<ClusterView> {
  const userIds = [...new Set(rows.flatMap((r) => (r.user_id === null ? [] : [r.user_id])))];
  const projectIds = [...new Set(rows.flatMap((r) => (r.management_project_id === null ? [] : [r.management_project_id])))];
  const [users, projects] = await Promise.all([
    userIds.length === 0 ? [] : db.selectFrom('users').select(['id', 'username', 'name', 'state']).where('id', 'in', userIds).execute(),
    projectIds.length === 0
      ? []
      : db.selectFrom('projects').select(['id', 'description', 'name', 'name_with_namespace', 'path', 'full_path', 'created_at']).where('id', 'in', projectIds).execute(),
  ]);
  return {
    baseUrl,
    users: new Map<number, ClusterUser>(users.map((u) => [u.id, u])),
    managementProjects: new Map<number, ManagementProject>(projects.map((p) => [p.id, p])),
  };
}
