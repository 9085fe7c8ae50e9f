// A project's repository as every writer and reader of it sees it: where it is (none yet reads as
// an empty repository), whether writes may go to it while a storage move copies it, the revisions
// the API names, and projects.empty_repo kept in step with its branches.
import type { ServiceContext } from '../core/context.ts';
import { DomainError, notFound } from '../core/errors.ts';
import type { Config } from '../config.ts';
import type { ProjectRow } from '../db/schema.ts';
import { validRevision } from '../git/args.ts';
import { hasBranches, resolveCommit } from '../git/refs.ts';
import { existingProjectRepository } from '../git/repository.ts';

/** The project's repository directory; null when it has none, which reads as an empty repository. */
export function repositoryDir(config: Config, project: Pick<ProjectRow, 'id' | 'repository_storage'>): string | null {
  return existingProjectRepository(config.repositoryStorages, project);
}

/** The repository a write goes to; a project without one has nothing to write into. */
export function requireRepositoryDir(config: Config, project: Pick<ProjectRow, 'id' | 'repository_storage'>): string {
  const dir = repositoryDir(config, project);
  if (dir === null) throw notFound('Repository');
  return dir;
}

/** The commit a ref names in a repository (null without one, or when the ref is no revision). */
export function resolveRevision(dir: string | null, ref: string): Promise<string | null> {
  return dir !== null && validRevision(ref) ? resolveCommit(dir, ref) : Promise.resolve(null);
}

/** The platform's refusal of writes while a storage move copies the repository. */
export const REPOSITORY_READ_ONLY_MESSAGE = 'The repository is temporarily read-only. Please try again later.';

/**
 * The API answers a write to a read-only repository with 400 and the message, as the platform does
 * when its pre-receive check refuses an API commit; push code reports REPOSITORY_READ_ONLY_MESSAGE
 * in its own protocol.
 */
export const repositoryReadOnly = () => new DomainError('bad_request', REPOSITORY_READ_ONLY_MESSAGE);

/** Refuses a write to the project's repository while it is read-only. */
export function assertWritable(project: Pick<ProjectRow, 'repository_read_only'>): void {
  if (project.repository_read_only) throw repositoryReadOnly();
}

/**
 * Brings projects.empty_repo up to date with the repository. Whatever creates or deletes branches
 * (pushes, the branch and commit APIs) calls this afterwards, so that lists never ask git.
 */
export async function refreshEmptyRepo(deps: ServiceContext, project: ProjectRow): Promise<boolean> {
  const dir = existingProjectRepository(deps.config.repositoryStorages, project);
  const empty = dir === null || !(await hasBranches(dir));
  if (empty !== Boolean(project.empty_repo)) await deps.db.updateTable('projects').set({ empty_repo: empty }).where('id', '=', project.id).execute();
  return empty;
}
