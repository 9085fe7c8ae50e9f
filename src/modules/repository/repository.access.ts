// Who reaches a project's repository through the API. Every repository route (files, commits,
// branches, tags, tree, archive) loads its project through here: a project the
// caller may not see is a 404, a repository feature closed to them "404 Repository Not Found"
// (the platform's require_repository_enabled!), and a missing ability a 403.
import type { FastifyRequest } from 'fastify';
import { type ProjectAbility, projectFeatureAvailable } from '../../core/access/abilities.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { readFeatureLevel } from '../../domain/settings/project-settings.ts';

/** Loads `loadedProject(req)` and requires the repository feature and an ability (download_code, push_code). */
export function loadRepository(ability: ProjectAbility) {
  const load = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await load(req);
    const { row, access, can } = loadedProject(req);
    const level = await readFeatureLevel(req.server.deps.db, row, 'repository');
    if (!projectFeatureAvailable(req.actor, row, access, 'repository', level)) throw notFound('Repository');
    if (!can.has(ability)) throw forbidden();
  };
}
