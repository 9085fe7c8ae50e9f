// GET /projects/:id/storage: administrators only, asked before the project is looked up (as the
// platform: a non-administrator gets 403 whether the project exists or not).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { repositoryDiskPath } from '../../domain/project-repository.ts';
import { presentProjectStorage } from './project-storage.presenter.ts';
import { ProjectParams, ProjectRepositoryStorageEntity } from './project-storage.schemas.ts';

export const projectStorageRoutes: FastifyPluginAsyncTypebox = async (api) => {
  api.get(
    '/projects/:id/storage',
    { schema: { params: ProjectParams, response: { 200: ProjectRepositoryStorageEntity } }, config: { auth: 'required' }, preHandler: [adminOnly, loadProject('read_project')] },
    async (req) => {
      const { row } = loadedProject(req);
      return presentProjectStorage(row, repositoryDiskPath(row));
    },
  );
};
