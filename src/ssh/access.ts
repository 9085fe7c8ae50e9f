// Who may run a git command over SSH, with the platform's answers (Gitlab::GitAccess and its
// deploy-key variant): a user key acts as its user, with the abilities git over HTTP checks; a
// deploy key reads the projects it is enabled on (and public ones), and writes to those where it
// may push. Snippets' repositories (`snippets/<id>`, `<project>/snippets/<id>`) and wikis'
// (`<project or group>.wiki`) are decided by their modules, as for git over HTTP; deploy keys
// reach no snippet, and only read wikis. The repository is named by the client; only a full path
// is read from it, and git then runs on the repository the server keeps for it.
import type { Kysely } from 'kysely';
import { type LoadedProject, findProjectByFullPath, projectAs } from '../core/access/loaders.ts';
import { projectAbilities } from '../core/access/abilities.ts';
import { actingUser } from '../core/auth/actor.ts';
import { accessDeniedReason, termsRefusal } from '../core/auth/resolve.ts';
import { accessPolicy } from '../domain/settings/application-settings.ts';
import type { BaseContext } from '../core/context.ts';
import type { DB, ProjectRow } from '../db/schema.ts';
import type { PushedRepository } from '../domain/push-leases.ts';
import type { GitService } from '../git/smart-http.ts';
import { SNIPPET_GIT_MESSAGES, checkSnippetGitAccess, snippetRepositoryRef } from '../modules/snippets/index.ts';
import { checkWikiGitAccess, wikiRepository } from '../modules/wikis/index.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../domain/project-repository.ts';
import { type Pusher, pusherOf } from '../domain/ref-protection.ts';
import { existingProjectRepository } from '../git/repository.ts';
import { GIT_ACCESS_MESSAGES, checkGitAccess } from '../modules/git-http/index.ts';
import type { ActiveKey } from '../modules/keys/keys.finder.ts';

const WIKI_SUFFIX = '.wiki';

export const DEPLOY_KEY_UPLOAD_MESSAGE = 'This deploy key does not have write access to this project.';

/** Reading (fetch, clone, archive) or writing (push). */
export type GitAction = 'download' | 'upload';

export type SshGitAccess =
  | {
      ok: true;
      /** The project whose own repository it is (its push rules, events and pipelines); null for a snippet's or a wiki's. */
      project: ProjectRow | null;
      gitDir: string;
      /** The repository a push writes, which holds a lease while it runs. */
      pushed: PushedRepository;
      /** Set for a push: whom the push rules judge, and whose push it is (a deploy key's pushes are its creator's). */
      writer: { pusher: Pusher; userId: number } | null;
    }
  | { ok: false; message: string };

type AccessDeps = BaseContext;

const refuse = (message: string): SshGitAccess => ({ ok: false, message });

/** The project's full path in a repository argument: leading slashes and a `.git` suffix are no part of it (Gitlab::RepoPath). */
export function repositoryFullPath(argument: string): string {
  return argument.replace(/^\/+/, '').replace(/\.git$/, '');
}

/** Why this key's owner may not use git at all (a blocked user, say); null when they may. */
export function keyRefusal(config: BaseContext['config'], key: ActiveKey): string | null {
  return key.kind === 'user' ? accessDeniedReason(config, key.user) : null;
}

export async function checkSshGitAccess(deps: AccessDeps, key: ActiveKey, action: GitAction, repository: string): Promise<SshGitAccess> {
  const refusal = keyRefusal(deps.config, key) ?? (key.kind === 'user' ? termsRefusal(await accessPolicy(deps.db), key.user) : null);
  if (refusal !== null) return refuse(refusal);
  const fullPath = repositoryFullPath(repository);
  const service = action === 'download' ? 'git-upload-pack' : 'git-receive-pack';
  const snippet = snippetRepositoryRef(fullPath);
  if (snippet !== null) return snippetAccess(deps, key, snippet, service);
  const found = await findProjectByFullPath(deps.db, fullPath);
  // `<project or group>.wiki` is a wiki's repository, unless a project has that very path.
  if (!found && fullPath.endsWith(WIKI_SUFFIX)) return wikiAccess(deps, key, fullPath.slice(0, -WIKI_SUFFIX.length), service);
  const gitDir = found ? existingProjectRepository(deps.config.repositoryStorages, found.row) : null;
  if (key.kind === 'user') {
    const actor = actingUser(key.user);
    const project: LoadedProject | null = found ? await projectAs(deps.db, actor, found.row) : null;
    // Archives are downloads (the platform's DOWNLOAD_COMMANDS).
    const access = checkGitAccess({ actor, command: service, project, repositoryExists: gitDir !== null });
    if (!access.ok) return refuse(access.message);
    const { row } = project as LoadedProject;
    return { ok: true, project: row, gitDir: gitDir as string, pushed: { kind: 'project', id: row.id, storage: row.repository_storage }, writer: action === 'upload' ? { pusher: pusherOf(project as LoadedProject, actor), userId: key.user.id } : null };
  }
  const enabled = found ? key.projects.find((p) => p.projectId === found.row.id) : undefined;
  // A project the key is not enabled on is the key's only as far as it is anyone's.
  const anonymous = found ? projectAbilities(null, found.row, 0) : new Set();
  if (!found || (!enabled && !anonymous.has('read_project'))) return refuse(GIT_ACCESS_MESSAGES.projectNotFound);
  if (gitDir === null) return refuse(GIT_ACCESS_MESSAGES.noRepository);
  const pushed = { kind: 'project', id: found.row.id } as const;
  if (action === 'download') return enabled || anonymous.has('download_code') ? { ok: true, project: found.row, gitDir, pushed, writer: null } : refuse(GIT_ACCESS_MESSAGES.download);
  if (found.row.repository_read_only) return refuse(REPOSITORY_READ_ONLY_MESSAGE);
  if (!enabled?.canPush) return refuse(DEPLOY_KEY_UPLOAD_MESSAGE);
  if (found.row.archived) return refuse(GIT_ACCESS_MESSAGES.pushCode);
  const creatorId = await deployKeyWriter(deps.db, key, found.row);
  if (creatorId === null) return refuse(DEPLOY_KEY_UPLOAD_MESSAGE);
  // A deploy key passes no access level: it pushes to unprotected branches and tags, and to protected branches whose rules name it.
  return { ok: true, project: found.row, gitDir, pushed, writer: { pusher: { accessLevel: 0, isAdmin: false, canPushCode: true, deployKeyId: key.keyId }, userId: creatorId } };
}

/** A snippet's repository: a user key as its user (checkSnippetGitAccess, as over HTTP); a deploy key never. */
async function snippetAccess(deps: AccessDeps, key: ActiveKey, ref: { projectPath: string | null; id: number }, service: GitService): Promise<SshGitAccess> {
  if (key.kind === 'deploy') return refuse(SNIPPET_GIT_MESSAGES.authenticationMechanism);
  const access = await checkSnippetGitAccess(deps, ref, actingUser(key.user), service);
  return access.ok ? { ok: true, project: null, gitDir: access.gitDir, pushed: { kind: 'snippet', id: access.snippetId }, writer: null } : refuse(access.message);
}

/** A wiki's repository: checkWikiGitAccess, as over HTTP, for the key's user, or for a deploy key as a reader of its projects. */
async function wikiAccess(deps: AccessDeps, key: ActiveKey, containerPath: string, service: GitService): Promise<SshGitAccess> {
  const actor = key.kind === 'user' ? actingUser(key.user) : null;
  const caller = key.kind === 'user' ? { actor } : { deployKeyOn: (projectId: number) => key.projects.some((p) => p.projectId === projectId) };
  const access = await checkWikiGitAccess({ ...deps, actor }, caller, containerPath, service);
  return access.ok ? { ok: true, project: null, gitDir: access.gitDir, pushed: wikiRepository(access.container), writer: null } : refuse(access.message);
}

/**
 * Whose a deploy key's push is: its creator's, who must still be active and able to read the
 * project (the platform's DeployKeyAccess#can_collaborate?); null when there is nobody.
 */
async function deployKeyWriter(db: Kysely<DB>, key: Extract<ActiveKey, { kind: 'deploy' }>, row: ProjectRow): Promise<number | null> {
  if (key.creatorId === null) return null;
  const creator = await db.selectFrom('users').selectAll().where('id', '=', key.creatorId).executeTakeFirst();
  if (!creator || creator.state !== 'active') return null;
  const project = await projectAs(db, actingUser(creator), row);
  return project.can.has('read_project') ? creator.id : null;
}
