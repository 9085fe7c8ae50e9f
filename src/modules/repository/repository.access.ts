// Who reaches a project's repository through the API, and where the repository lives. Every
// repository route (files, commits, tree, archive) loads its project through here: a project the
// caller may not see is a 404, a repository feature closed to them "404 Repository Not Found"
// (the platform's require_repository_enabled!), and a missing ability a 403.
import type { FastifyRequest } from 'fastify';
import { type ProjectAbility, projectFeatureAvailable } from '../../core/access/abilities.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import type { Config } from '../../config.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import { featureLevel, parseSettings } from '../projects/projects.settings.ts';

/** Loads `loadedProject(req)` and requires the repository feature and an ability (download_code, push_code). */
export function loadRepository(ability: ProjectAbility) {
  const load = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await load(req);
    const { row, access, can } = loadedProject(req);
    const level = featureLevel(row, parseSettings(row.settings), 'repository');
    if (!projectFeatureAvailable(req.actor, row, access, 'repository', level)) throw notFound('Repository');
    if (!can.has(ability)) throw forbidden();
  };
}

/** The project's repository directory; null when it has none, which reads as an empty repository. */
export function repositoryDir(config: Config, project: Pick<ProjectRow, 'id' | 'repository_storage'>): string | null {
  return existingProjectRepository(config.repositoryStorages, project);
}

/** The repository a write goes to; a project without one has nothing to write into. */
export function requireRepositoryDir(config: Config, project: Pick<ProjectRow, 'id' | 'repository_storage'>): string {
  const dir = repositoryDir(config, project);
  if (dir === null) throw notFound('Repository');
  return dir;
}
