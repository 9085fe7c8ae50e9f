// Who may do what with a project's pipelines and jobs (the platform's 14.x ProjectPolicy for CI):
// members from Reporter read them; others who read the project read them when its jobs are public
// (`public_jobs`); Developers create, retry, cancel and play; Maintainers manage variables,
// triggers and runners, and administer pipelines (what a cluster's management project asks);
// Owners delete pipelines. A project whose CI/CD feature is disabled shows none of it; one set to
// 'private' shows it to members only.
import type { LoadedProject } from '../../core/access/loaders.ts';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { ProjectSettingValues } from '../../domain/settings/project-settings.ts';

export type CiAbility = 'read_pipeline' | 'read_build' | 'create_pipeline' | 'update_pipeline' | 'update_build' | 'destroy_pipeline' | 'admin_build' | 'admin_pipeline';

export function ciAbilities(actor: Actor | null, project: Pick<LoadedProject, 'row' | 'access' | 'can'>, settings: ProjectSettingValues): Set<CiAbility> {
  const can = new Set<CiAbility>();
  if (!project.can.has('read_project')) return can;
  const level = actor?.isAdmin ? ACCESS.OWNER : project.access;
  if (!projectFeatureAvailable(actor, project.row, project.access, 'builds', settings.features.builds_access_level)) return can;
  if (level >= ACCESS.REPORTER || settings.ciCd.public_builds) can.add('read_pipeline').add('read_build');
  if (project.row.archived) return can;
  if (level >= ACCESS.DEVELOPER) can.add('create_pipeline').add('update_pipeline').add('update_build');
  if (level >= ACCESS.MAINTAINER) can.add('admin_build').add('admin_pipeline');
  if (level >= ACCESS.OWNER) can.add('destroy_pipeline');
  return can;
}
