// A project's repository as every writer and reader of it sees it: where it is (none yet reads as
// an empty repository), whether writes may go to it while a storage move copies it, whether it
// has a branch, and the revisions the API names. Pure of modules, so that projects, pushes,
// branches, tags, commits and files all use it.
import { DomainError, apiError, notFound } from '../core/errors.ts';
import type { Config } from '../config.ts';
import type { ProjectRow } from '../db/schema.ts';
import { validBranchName, validRevision } from '../git/args.ts';
import { resolveCommit, resolveRef } from '../git/refs.ts';
import { existingProjectRepository, repositoryRelativePath } from '../git/repository.ts';

/** The project's repository directory; null when it has none, which reads as an empty repository. */
export function repositoryDir(config: Config, project: Pick<ProjectRow, 'id' | 'repository_storage'>): string | null {
  return existingProjectRepository(config.repositoryStorages, project);
}

/** Where the repository lies within its storage, as the platform names it (no `.git`): `@hashed/ab/cd/<sha256 of the id>`. */
export const repositoryDiskPath = (project: Pick<ProjectRow, 'id'>): string => repositoryRelativePath(project.id).replace(/\.git$/, '');

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
export const repositoryReadOnly = () => apiError(400, REPOSITORY_READ_ONLY_MESSAGE);

/** Whether an error is the refusal of a write to a read-only repository (whatever its status). */
export const isRepositoryReadOnly = (error: unknown): boolean => error instanceof DomainError && error.message === REPOSITORY_READ_ONLY_MESSAGE;

/** Refuses a write to the project's repository while it is read-only. */
export function assertWritable(project: Pick<ProjectRow, 'repository_read_only'>): void {
  if (project.repository_read_only) throw repositoryReadOnly();
}

/** Whether the project's repository has this branch. */
export async function branchExists(config: Config, project: ProjectRow, branch: string): Promise<boolean> {
  const dir = existingProjectRepository(config.repositoryStorages, project);
  return dir !== null && validBranchName(branch) && (await resolveRef(dir, `refs/heads/${branch}`)) !== null;
}
