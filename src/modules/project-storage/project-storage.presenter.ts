// Pure project row (and its repository's path in the storage) → the repository storage entity.
import type { ProjectRow } from '../../db/schema.ts';
import type { ProjectRepositoryStorage } from './project-storage.schemas.ts';

export function presentProjectStorage(project: Pick<ProjectRow, 'id' | 'created_at' | 'repository_storage'>, diskPath: string): ProjectRepositoryStorage {
  return { project_id: project.id, disk_path: diskPath, created_at: project.created_at, repository_storage: project.repository_storage };
}
