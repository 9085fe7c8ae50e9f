// Where a project's repository is kept (the platform's GET /projects/:id/storage, 14.x).
import { type Static, Type } from '@sinclair/typebox';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Timestamp } from '../../core/schema.ts';

export const ProjectRepositoryStorageEntity = Entity({
  project_id: Type.Integer(),
  disk_path: Type.String(),
  created_at: Timestamp,
  repository_storage: Type.String(),
});
export type ProjectRepositoryStorage = Static<typeof ProjectRepositoryStorageEntity>;

export const ProjectParams = Params({ id: IdOrPath });
