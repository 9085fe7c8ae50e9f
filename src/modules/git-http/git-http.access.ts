// Who may fetch from or push to a repository over HTTP, with the platform's answers
// (Gitlab::GitAccess#check, in its order). Authentication is decided before: by then the actor is
// whoever the credentials named, or nobody for an anonymous fetch.
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import type { GitService } from '../../git/smart-http.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';

export const GIT_ACCESS_MESSAGES = {
  authDownload: 'You are not allowed to download code.',
  authUpload: 'You are not allowed to upload code.',
  commandNotAllowed: "The command you're trying to execute is not allowed.",
  projectNotFound: 'The project you were looking for could not be found.',
  noRepository: 'A repository for this project does not exist yet.',
  download: 'You are not allowed to download code from this project.',
  pushCode: 'You are not allowed to push code to this project.',
} as const;

export type GitAccessResult = { ok: true; service: GitService } | { ok: false; status: 403 | 404; message: string };

/** What a credential lets a git client do at all, before the project has its say (Gitlab::Auth's abilities of its scopes). */
export function credentialAllows(actor: Actor | null, service: GitService): boolean {
  if (actor === null) return service === 'git-upload-pack';
  switch (actor.via) {
    case 'password':
    case 'session':
      return true;
    // A job token fetches the code of what its job may see, and never pushes.
    case 'job_token':
      return service === 'git-upload-pack';
    default: {
      const scopes = service === 'git-upload-pack' ? ['api', 'read_api', 'read_repository', 'write_repository'] : ['api', 'write_repository'];
      return scopes.some((scope) => actor.scopes.includes(scope));
    }
  }
}

export interface GitAccessRequest {
  actor: Actor | null;
  /** The service asked for: `service` of info/refs (anything a client sends) or the RPC's. */
  command: string | undefined;
  /** Null when no project has that path. */
  project: Pick<LoadedProject, 'row' | 'can'> | null;
  repositoryExists: boolean;
}

const refuse = (status: 403 | 404, message: string): GitAccessResult => ({ ok: false, status, message });

export function checkGitAccess({ actor, command, project, repositoryExists }: GitAccessRequest): GitAccessResult {
  const service = command === 'git-upload-pack' || command === 'git-receive-pack' ? command : null;
  if (service !== null && !credentialAllows(actor, service)) {
    return refuse(403, service === 'git-upload-pack' ? GIT_ACCESS_MESSAGES.authDownload : GIT_ACCESS_MESSAGES.authUpload);
  }
  if (service === null) return refuse(403, GIT_ACCESS_MESSAGES.commandNotAllowed);
  if (project === null || !project.can.has('read_project')) return refuse(404, GIT_ACCESS_MESSAGES.projectNotFound);
  if (!repositoryExists) return refuse(404, GIT_ACCESS_MESSAGES.noRepository);
  if (service === 'git-upload-pack') return project.can.has('download_code') ? { ok: true, service } : refuse(403, GIT_ACCESS_MESSAGES.download);
  if (project.row.repository_read_only) return refuse(403, REPOSITORY_READ_ONLY_MESSAGE);
  return project.can.has('push_code') ? { ok: true, service } : refuse(403, GIT_ACCESS_MESSAGES.pushCode);
}

export interface DeployTokenGitAccessRequest {
  /** The token has the read_repository scope. */
  readRepository: boolean;
  command: string | undefined;
  projectExists: boolean;
  repositoryExists: boolean;
}

/** What a deploy token reaching the project may do: fetch with read_repository, never push (its scopes hold no push ability). */
export function checkDeployTokenGitAccess({ readRepository, command, projectExists, repositoryExists }: DeployTokenGitAccessRequest): GitAccessResult {
  const service = command === 'git-upload-pack' || command === 'git-receive-pack' ? command : null;
  if (service === 'git-receive-pack') return refuse(403, GIT_ACCESS_MESSAGES.authUpload);
  if (service === 'git-upload-pack' && !readRepository) return refuse(403, GIT_ACCESS_MESSAGES.authDownload);
  if (service === null) return refuse(403, GIT_ACCESS_MESSAGES.commandNotAllowed);
  if (!projectExists) return refuse(404, GIT_ACCESS_MESSAGES.projectNotFound);
  if (!repositoryExists) return refuse(404, GIT_ACCESS_MESSAGES.noRepository);
  return { ok: true, service };
}
