// Who may fetch from or push to a snippet's repository over git (the platform's GitAccessSnippet,
// 14.x), at `snippets/<id>.git` or `<project path>/snippets/<id>.git`: readers fetch, whoever may
// change the snippet pushes. Git over HTTP and over SSH ask the same question here. Authentication
// is decided before: the actor is whoever the credentials or the key named, or nobody for an
// anonymous fetch.
import type { Kysely } from 'kysely';
import { projectFeatureAvailable } from '../../core/access/abilities.ts';
import { accessOf, findProjectByFullPath } from '../../core/access/loaders.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { REPOSITORY_READ_ONLY_MESSAGE } from '../../domain/project-repository.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { readFeatureLevel } from '../../domain/settings/project-settings.ts';
import { humanSize } from '../../domain/validation.ts';
import { repositorySize } from '../../git/statistics.ts';
import { existingSnippetRepository } from '../../domain/snippet-repositories.ts';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { GitService } from '../../git/smart-http.ts';
import { type ProjectSnippetScope, canChangeSnippet, canReadSnippet } from './snippets.access.ts';
import { findSnippet } from './snippets.finder.ts';

export const SNIPPET_GIT_MESSAGES = {
  /** A deploy key reaches no snippet (GitAccessSnippet takes users and their keys only). */
  authenticationMechanism: 'The authentication mechanism is not supported.',
  readSnippet: 'You are not allowed to read this snippet.',
  updateSnippet: 'You are not allowed to update this snippet.',
  snippetNotFound: 'The snippet you were looking for could not be found.',
  noRepository: 'The snippet repository you were looking for could not be found.',
  projectNotFound: 'The project you were looking for could not be found.',
} as const;

/** The snippet a repository path names: `snippets/<id>` (personal) or `<project>/snippets/<id>`; null for any other path. */
export function snippetRepositoryRef(fullPath: string): { projectPath: string | null; id: number } | null {
  const match = /^(?:(.+)\/)?snippets\/(\d{1,15})$/.exec(fullPath);
  return match ? { projectPath: match[1] ?? null, id: Number(match[2]) } : null;
}

export type SnippetGitAccess =
  | { ok: true; gitDir: string; snippetId: number }
  /** `unreadable`: the caller may not read the snippet (an anonymous caller is then asked to sign in). */
  | { ok: false; status: 403 | 404; message: string; unreadable?: boolean };

const refuse = (status: 403 | 404, message: string, unreadable = false): SnippetGitAccess => ({ ok: false, status, message, unreadable });

export async function checkSnippetGitAccess(
  deps: { db: Kysely<DB>; config: Config },
  ref: { projectPath: string | null; id: number },
  actor: Actor | null,
  service: GitService,
): Promise<SnippetGitAccess> {
  const { db, config } = deps;
  const snippet = await findSnippet(db, ref.id);
  let scope: ProjectSnippetScope | null = null;
  if (ref.projectPath === null) {
    if (!snippet || snippet.project_id !== null) return refuse(404, SNIPPET_GIT_MESSAGES.snippetNotFound);
  } else {
    const project = await findProjectByFullPath(db, ref.projectPath);
    const access = project ? await accessOf(db, actor, project.row) : null;
    if (!project || !access?.can.has('read_project')) return refuse(404, SNIPPET_GIT_MESSAGES.projectNotFound, true);
    if (!snippet || snippet.project_id !== project.row.id) return refuse(404, SNIPPET_GIT_MESSAGES.snippetNotFound);
    const level = await readFeatureLevel(db, project.row, 'snippets');
    if (!projectFeatureAvailable(actor, project.row, access.access, 'snippets', level)) return refuse(403, SNIPPET_GIT_MESSAGES.readSnippet, true);
    scope = { access: access.access, archived: project.row.archived };
  }
  if (!canReadSnippet(actor, snippet, scope)) return refuse(403, SNIPPET_GIT_MESSAGES.readSnippet, true);
  const gitDir = existingSnippetRepository(config, snippet);
  if (gitDir === null) return refuse(404, SNIPPET_GIT_MESSAGES.noRepository);
  if (service === 'git-upload-pack') return { ok: true, gitDir, snippetId: snippet.id };
  if (!canChangeSnippet(actor, snippet, scope)) return refuse(403, SNIPPET_GIT_MESSAGES.updateSnippet);
  if (snippet.repository_read_only) return refuse(403, REPOSITORY_READ_ONLY_MESSAGE);
  const limit = (await applicationSettings(db)).snippet_size_limit;
  const size = await repositorySize(gitDir);
  if (size > limit) return refuse(403, sizeExceeded(limit, size - limit));
  return { ok: true, gitDir, snippetId: snippet.id };
}

/**
 * A push to a snippet repository already over the instance's snippet_size_limit (GitAccess's
 * check_size_before_push!, in the words of RepositorySizeErrorMessage#push_error: two significant digits).
 */
function sizeExceeded(limit: number, excess: number): string {
  return `Your push has been rejected, because this repository has exceeded its size limit of ${humanSize(limit, 2)} by ${humanSize(excess, 2)}. Please contact your GitLab administrator for more information.`;
}
