// Who may read and write a wiki (14.x ProjectPolicy and GroupPolicy): a project's wiki is open
// as its wiki feature's access level says (disabled: to nobody, private: to members, enabled: to
// every reader of the project), then read by readers, written by Developers and pages deleted by
// Maintainers, none of it written while the project is archived; a group's wiki follows the
// group's membership. A project or group the caller may not see is 404, a wiki they may not use 403.
import type { FastifyRequest } from 'fastify';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { accessToGroup, accessToProject, findGroup, findProjectByFullPath, loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import { forbidden } from '../../core/errors.ts';
import { readFeatureLevel } from '../../domain/settings/project-settings.ts';
import { type WikiContainer, groupWikiStorage } from './wiki-repositories.ts';

export type WikiAbility = 'read_wiki' | 'create_wiki' | 'admin_wiki';

/** Loads the project named by `:id` and requires the wiki ability on it. */
export function loadProjectWiki(ability: WikiAbility) {
  const load = loadProject('read_project');
  return async (req: FastifyRequest) => {
    await load(req);
    const { row, access, can } = loadedProject(req);
    const level = await readFeatureLevel(req.server.deps.db, row, 'wiki');
    if (!projectFeatureAvailable(req.actor, row, access, 'wiki', level) || !can.has(ability)) throw forbidden();
  };
}

/** Loads the group named by `:id` and requires the wiki ability on it. */
export const loadGroupWiki = (ability: WikiAbility) => loadGroup(ability);

export const projectWikiContainer = (req: FastifyRequest): WikiContainer => ({ kind: 'project', project: loadedProject(req).row });

export const groupWikiContainer = (req: FastifyRequest): WikiContainer => ({ kind: 'group', group: loadedGroup(req).row });

/** What a git client may do with the wiki `<container path>.wiki` names (Gitlab::GitAccessWiki). */
export interface WikiGitAccess {
  container: WikiContainer;
  /** The container is visible to the caller (else the wiki reads as not found). */
  visible: boolean;
  read: boolean;
  write: boolean;
  /** A storage move is copying the repository. */
  readOnly: boolean;
}

/** The wiki of the project, else of the group, at a full path, and what the request's actor may do with it; null when neither exists. */
export async function wikiGitAccess(req: FastifyRequest, containerPath: string): Promise<WikiGitAccess | null> {
  const { db } = req.server.deps;
  const project = await findProjectByFullPath(db, containerPath);
  if (project) {
    const { access, can } = await accessToProject(req, project.row);
    const open = projectFeatureAvailable(req.actor, project.row, access, 'wiki', await readFeatureLevel(db, project.row, 'wiki'));
    return {
      container: { kind: 'project', project: project.row },
      visible: can.has('read_project'),
      read: open && can.has('read_wiki'),
      write: open && can.has('create_wiki'),
      readOnly: project.row.repository_read_only,
    };
  }
  const group = await findGroup(req, containerPath);
  if (!group) return null;
  const { can } = await accessToGroup(req, group);
  return {
    container: { kind: 'group', group },
    visible: can.has('read_group'),
    read: can.has('read_wiki'),
    write: can.has('create_wiki'),
    readOnly: (await groupWikiStorage(db, group.id))?.read_only ?? false,
  };
}
