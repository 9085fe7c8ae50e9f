// Who may read and report a project's commit statuses (14.x ProjectPolicy): read_commit_status for
// members from Reporter and for every caller the project is public to, or internal to (so not for
// guests of a private project), whether or not its jobs are public; create_commit_status for
// Developers of a project that is not archived. Neither where the repository is out of the caller's
// reach, nor where CI/CD is kept to members the caller is not one of; CI/CD disabled altogether
// leaves both, for the external CI that reports them.
import type { FastifyRequest } from 'fastify';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { ACCESS, VISIBILITY } from '../../core/access/levels.ts';
import { type LoadedProject, loadProject, loadedProject } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { forbidden } from '../../core/errors.ts';
import { type ProjectFeatures, readProjectSettings } from '../../domain/settings/project-settings.ts';

export type CommitStatusAbility = 'read_commit_status' | 'create_commit_status';

type Features = Pick<ProjectFeatures, 'repository_access_level' | 'builds_access_level'>;

export function commitStatusAbilities(actor: Actor | null, project: Pick<LoadedProject, 'row' | 'access'>, features: Features): Set<CommitStatusAbility> {
  const can = new Set<CommitStatusAbility>();
  const { row, access } = project;
  const reaches = (feature: string, level: string) => projectFeatureAvailable(actor, row, access, feature, level);
  const buildsKeptFromCaller = features.builds_access_level !== 'disabled' && !reaches('builds', features.builds_access_level);
  if (buildsKeptFromCaller || !reaches('repository', features.repository_access_level)) return can;
  const level = actor?.isAdmin ? ACCESS.OWNER : access;
  const publicAccess = row.visibility_level >= VISIBILITY.public || (row.visibility_level >= VISIBILITY.internal && actor !== null && !actor.user.external);
  if (level >= ACCESS.REPORTER || publicAccess) can.add('read_commit_status');
  if (level >= ACCESS.DEVELOPER && !row.archived) can.add('create_commit_status');
  return can;
}

/** The pre-handler: the project (404 when invisible) and the ability the route needs (403 without it). */
export function loadCommitStatuses(ability: CommitStatusAbility) {
  const project = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await project(req);
    const loaded = loadedProject(req);
    const { features } = await readProjectSettings(req.server.deps.db, loaded.row);
    if (!commitStatusAbilities(req.actor, loaded, features).has(ability)) throw forbidden();
  };
}
