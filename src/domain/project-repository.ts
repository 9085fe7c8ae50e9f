// What every writer of a project's repository shares: whether it may be written now, and whether
// it has a branch. Pure of modules, so that projects, pushes, branches, tags and commits all use it.
import { DomainError } from '../core/errors.ts';
import type { Config } from '../config.ts';
import type { ProjectRow } from '../db/schema.ts';
import { validBranchName } from '../git/args.ts';
import { resolveRef } from '../git/refs.ts';
import { existingProjectRepository } from '../git/repository.ts';

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

/** Whether the project's repository has this branch. */
export async function branchExists(config: Config, project: ProjectRow, branch: string): Promise<boolean> {
  const dir = existingProjectRepository(config.repositoryStorages, project);
  return dir !== null && validBranchName(branch) && (await resolveRef(dir, `refs/heads/${branch}`)) !== null;
}
