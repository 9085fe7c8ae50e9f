// Who may do what with a project's releases (the platform's ProjectPolicy and ReleasePolicy, 14.x,
// with protected tags evaluated for releases as 14.x does by default): readers of the project read
// its releases while its repository is open to them (403 otherwise); only those who may download
// the code see a release's repository fields; milestones show while issues or merge requests are
// open to the caller; developers create, update and delete releases, of a protected tag only when
// they may create that tag.
import type { FastifyRequest } from 'fastify';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { loadProject, loadedProject } from '../../core/access/loaders.ts';
import { forbidden } from '../../core/errors.ts';
import { canCreateTag, pusherOf } from '../../domain/ref-protection.ts';
import { readProjectSettings } from '../../domain/settings/project-settings.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';

export interface ReleaseAccess {
  downloadCode: boolean;
  readMilestones: boolean;
  /** create_release (the same role updates and deletes), before the protected tag rules. */
  create: boolean;
  /** Whether the caller may create, update or delete the release of this tag. */
  mayChange(tag: string): boolean;
}

const loaded = new WeakMap<FastifyRequest, ReleaseAccess>();

export function releaseAccess(req: FastifyRequest): ReleaseAccess {
  const access = loaded.get(req);
  if (!access) throw new Error(`${req.method} ${req.routeOptions.url}: no releases pre-handler`);
  return access;
}

/** Loads the project and requires read_release; releaseAccess(req) then says the rest. */
export function loadReleases() {
  const load = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await load(req);
    const project = loadedProject(req);
    const { row, access, can } = project;
    const { db } = req.server.deps;
    const { features } = await readProjectSettings(db, row);
    const open = (feature: 'repository' | 'issues' | 'merge_requests') => projectFeatureAvailable(req.actor, row, access, feature, features[`${feature}_access_level`]);
    if (!can.has('read_release') || !open('repository')) throw forbidden();
    const create = can.has('create_release');
    const protections = create ? await loadRefProtections(db, row.id) : null;
    const pusher = pusherOf(project, req.actor);
    loaded.set(req, {
      downloadCode: can.has('download_code'),
      readMilestones: open('issues') || open('merge_requests'),
      create,
      mayChange: (tag) => protections !== null && canCreateTag(protections, tag, pusher),
    });
  };
}
