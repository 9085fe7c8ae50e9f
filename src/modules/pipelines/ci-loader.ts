// The pre-handler of CI routes: the project (404 when invisible), its settings, and the CI ability
// the route needs (403 without it).
import type { FastifyRequest } from 'fastify';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { forbidden } from '../../core/errors.ts';
import { type ProjectSettingValues, loadProjectSettings } from '../../domain/settings/project-settings.ts';
import { type CiAbility, ciAbilities } from './ci-abilities.ts';

export interface LoadedCi {
  settings: ProjectSettingValues;
  can: Set<CiAbility>;
}

const loaded = new WeakMap<FastifyRequest, LoadedCi>();

export function loadedCi(req: FastifyRequest): LoadedCi {
  const ci = loaded.get(req);
  if (!ci) throw new Error(`${req.method} ${req.routeOptions.url}: the route has no loadCi preHandler`);
  return ci;
}

export function loadCi(ability: CiAbility) {
  const project = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await project(req);
    const row = loadedProject(req);
    const [settings] = (await loadProjectSettings(req.server.deps.db, [row.row])).values();
    const can = ciAbilities(req.actor, row, settings);
    // A project the caller sees answers 403 for CI it may not reach, as the platform's authorize! does.
    if (!can.has(ability)) throw forbidden();
    loaded.set(req, { settings, can });
  };
}
