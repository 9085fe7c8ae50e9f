// Who may read and write a wiki (14.x ProjectPolicy and GroupPolicy): a project's wiki is open
// as its wiki feature's access level says (disabled: to nobody, private: to members, enabled: to
// every reader of the project), then read by readers, written by Developers and pages deleted by
// Maintainers, none of it written while the project is archived; a group's wiki follows the
// group's membership. A project or group the caller may not see is 404, a wiki they may not use 403.
import type { FastifyRequest } from 'fastify';
import { projectAbilities, projectFeatureAvailable } from '../../core/access/abilities.ts';
import { accessOf, findGroupByFullPath, findProjectByFullPath, groupAccessOf, loadGroup, loadProject, loadedGroup, loadedProject } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { BaseContext, ServiceContext } from '../../core/context.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import type { GitService } from '../../git/smart-http.ts';
import { forbidden } from '../../core/errors.ts';
import { readFeatureLevel } from '../../domain/settings/project-settings.ts';
import { type WikiContainer, existingWikiDir, groupWikiStorage, wikiDirForWrite } from './wiki-repositories.ts';

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

/** Gitlab::GitAccessWiki's messages. */
export const WIKI_GIT_MESSAGES = {
  notFound: 'The wiki you were looking for could not be found.',
  noRepository: 'A repository for this wiki does not exist yet.',
  download: 'You are not allowed to download files from this wiki.',
  write: "You are not allowed to write to this project's wiki.",
} as const;

/** Who asks: a user (or nobody), or a deploy key, which reaches the projects it is enabled on as a reader. */
export type WikiGitCaller = { actor: Actor | null } | { deployKeyOn: (projectId: number) => boolean };

export type WikiGitAccess =
  | { ok: true; gitDir: string; container: WikiContainer }
  /** `unreadable`: the caller may not read the wiki (an anonymous caller is then asked to sign in). */
  | { ok: false; status: 403 | 404; message: string; unreadable: boolean };

interface WikiRights {
  container: WikiContainer;
  /** The container is visible to the caller (else the wiki reads as not found). */
  visible: boolean;
  read: boolean;
  write: boolean;
  /** A storage move is copying the repository. */
  readOnly: boolean;
}

/** The wiki of the project, else of the group, at a full path, and what the caller may do with it; null when neither exists. */
async function wikiRights(ctx: BaseContext, caller: WikiGitCaller, containerPath: string): Promise<WikiRights | null> {
  const { db } = ctx;
  const project = await findProjectByFullPath(db, containerPath);
  if (project) {
    const { row } = project;
    const level = await readFeatureLevel(db, row, 'wiki');
    const readOnly = row.repository_read_only;
    if ('deployKeyOn' in caller) {
      // A deploy key reads the wikis of its projects as it reads their code, and others as anybody does; it never writes one.
      const enabled = caller.deployKeyOn(row.id);
      const anyone = projectAbilities(null, row, 0);
      const open = projectFeatureAvailable(null, row, 0, 'wiki', level) && anyone.has('read_wiki');
      return { container: { kind: 'project', project: row }, visible: enabled || anyone.has('read_project'), read: enabled || open, write: false, readOnly };
    }
    const { access, can } = await accessOf(db, caller.actor, row);
    const open = projectFeatureAvailable(caller.actor, row, access, 'wiki', level);
    return { container: { kind: 'project', project: row }, visible: can.has('read_project'), read: open && can.has('read_wiki'), write: open && can.has('create_wiki'), readOnly };
  }
  // Deploy keys belong to projects: no group wiki is theirs.
  const group = 'actor' in caller ? await findGroupByFullPath(db, containerPath) : null;
  if (!group || !('actor' in caller)) return null;
  const { can } = await groupAccessOf(db, ctx.now(), caller.actor, group);
  return {
    container: { kind: 'group', group },
    visible: can.has('read_group'),
    read: can.has('read_wiki'),
    write: can.has('create_wiki'),
    readOnly: (await groupWikiStorage(db, group.id))?.read_only ?? false,
  };
}

/**
 * Who may fetch from or push to the wiki `<container path>.wiki` names (Gitlab::GitAccessWiki),
 * for git over HTTP and over SSH alike: readers of the wiki fetch, writers push (Developers and up
 * where the wiki is open to them, never while the project is archived or a storage move copies
 * the repository). A push to a wiki without a repository yet creates it, as its first write
 * through the API does. What the credentials allow at all is decided before.
 */
export async function checkWikiGitAccess(ctx: ServiceContext, caller: WikiGitCaller, containerPath: string, service: GitService): Promise<WikiGitAccess> {
  const wiki = await wikiRights(ctx, caller, containerPath);
  const refuse = (status: 403 | 404, message: string): WikiGitAccess => ({ ok: false, status, message, unreadable: !wiki?.read });
  if (!wiki?.visible) return refuse(404, WIKI_GIT_MESSAGES.notFound);
  if (service === 'git-upload-pack') {
    if (!wiki.read) return refuse(403, WIKI_GIT_MESSAGES.download);
    const gitDir = await existingWikiDir(ctx.db, ctx.config, wiki.container);
    return gitDir === null ? refuse(404, WIKI_GIT_MESSAGES.noRepository) : { ok: true, gitDir, container: wiki.container };
  }
  if (!wiki.write) return refuse(403, WIKI_GIT_MESSAGES.write);
  if (wiki.readOnly) return refuse(403, REPOSITORY_READ_ONLY_MESSAGE);
  return { ok: true, gitDir: await wikiDirForWrite(ctx, wiki.container), container: wiki.container };
}
