// Who may run a git command over SSH, with the platform's answers (Gitlab::GitAccess and its
// deploy-key variant): a user key acts as its user, with the abilities git over HTTP checks; a
// deploy key reads the projects it is enabled on (and public ones), and writes to those where it
// may push. The repository is named by the client; only a project's full path is read from it, and
// git then runs on that project's repository, wherever the server keeps it.
import type { Kysely } from 'kysely';
import { type LoadedProject, findProjectByFullPath, projectAs } from '../core/access/loaders.ts';
import { projectAbilities } from '../core/access/abilities.ts';
import { actingUser } from '../core/auth/actor.ts';
import { accessDeniedReason, termsRefusal } from '../core/auth/resolve.ts';
import { accessPolicy } from '../domain/settings/application-settings.ts';
import type { Config } from '../config.ts';
import type { DB, ProjectRow } from '../db/schema.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../domain/project-repository.ts';
import { type Pusher, pusherOf } from '../domain/ref-protection.ts';
import { existingProjectRepository } from '../git/repository.ts';
import { GIT_ACCESS_MESSAGES, checkGitAccess } from '../modules/git-http/index.ts';
import type { ActiveKey } from '../modules/keys/keys.finder.ts';

export const DEPLOY_KEY_UPLOAD_MESSAGE = 'This deploy key does not have write access to this project.';

/** Reading (fetch, clone, archive) or writing (push). */
export type GitAction = 'download' | 'upload';

export type SshGitAccess =
  | {
      ok: true;
      project: ProjectRow;
      gitDir: string;
      /** Set for a push: whom the push rules judge, and whose push it is (a deploy key's pushes are its creator's). */
      writer: { pusher: Pusher; userId: number } | null;
    }
  | { ok: false; message: string };

interface AccessDeps {
  db: Kysely<DB>;
  config: Config;
}

const refuse = (message: string): SshGitAccess => ({ ok: false, message });

/** The project's full path in a repository argument: leading slashes and a `.git` suffix are no part of it (Gitlab::RepoPath). */
export function repositoryFullPath(argument: string): string {
  return argument.replace(/^\/+/, '').replace(/\.git$/, '');
}

/** Why this key's owner may not use git at all (a blocked user, say); null when they may. */
export function keyRefusal(config: Config, key: ActiveKey): string | null {
  return key.kind === 'user' ? accessDeniedReason(config, key.user) : null;
}

export async function checkSshGitAccess(deps: AccessDeps, key: ActiveKey, action: GitAction, repository: string): Promise<SshGitAccess> {
  const refusal = keyRefusal(deps.config, key) ?? (key.kind === 'user' ? termsRefusal(await accessPolicy(deps.db), key.user) : null);
  if (refusal !== null) return refuse(refusal);
  const found = await findProjectByFullPath(deps.db, repositoryFullPath(repository));
  const gitDir = found ? existingProjectRepository(deps.config.repositoryStorages, found.row) : null;
  if (key.kind === 'user') {
    const actor = actingUser(key.user);
    const project: LoadedProject | null = found ? await projectAs(deps.db, actor, found.row) : null;
    // Archives are downloads (the platform's DOWNLOAD_COMMANDS).
    const access = checkGitAccess({ actor, command: action === 'download' ? 'git-upload-pack' : 'git-receive-pack', project, repositoryExists: gitDir !== null });
    if (!access.ok) return refuse(access.message);
    const { row } = project as LoadedProject;
    return { ok: true, project: row, gitDir: gitDir as string, writer: action === 'upload' ? { pusher: pusherOf(project as LoadedProject, actor), userId: key.user.id } : null };
  }
  const enabled = found ? key.projects.find((p) => p.projectId === found.row.id) : undefined;
  // A project the key is not enabled on is the key's only as far as it is anyone's.
  const anonymous = found ? projectAbilities(null, found.row, 0) : new Set();
  if (!found || (!enabled && !anonymous.has('read_project'))) return refuse(GIT_ACCESS_MESSAGES.projectNotFound);
  if (gitDir === null) return refuse(GIT_ACCESS_MESSAGES.noRepository);
  if (action === 'download') return enabled || anonymous.has('download_code') ? { ok: true, project: found.row, gitDir, writer: null } : refuse(GIT_ACCESS_MESSAGES.download);
  if (found.row.repository_read_only) return refuse(REPOSITORY_READ_ONLY_MESSAGE);
  if (!enabled?.canPush) return refuse(DEPLOY_KEY_UPLOAD_MESSAGE);
  if (found.row.archived) return refuse(GIT_ACCESS_MESSAGES.pushCode);
  const creatorId = await deployKeyWriter(deps.db, key, found.row);
  if (creatorId === null) return refuse(DEPLOY_KEY_UPLOAD_MESSAGE);
  // A deploy key passes no access level: it pushes to unprotected branches and tags, and to protected branches whose rules name it.
  return { ok: true, project: found.row, gitDir, writer: { pusher: { accessLevel: 0, isAdmin: false, canPushCode: true, deployKeyId: key.keyId }, userId: creatorId } };
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
