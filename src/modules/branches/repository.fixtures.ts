// Test fixtures for the branch and tag routes: a repository for a project the factories made (they
// write rows only), commits on it made with the git library rather than through the API, and who
// may read a repository in the access matrix.
import { type Expectation, ROLE_LEVEL, expectation } from '../../../test/access-matrix.ts';
import type { TestApp } from '../../../test/harness.ts';
import { ACCESS } from '../../core/access/levels.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { createCommit } from '../../git/commits.ts';
import { createRepository, projectRepositoryPath } from '../../git/repository.ts';

export const AUTHOR = { name: 'Ada Lovelace', email: 'ada@example.com' };

let files = 0;

/** A README commit on `main`, which the project then names as its default branch. */
export async function giveRepository(t: TestApp, project: ProjectRow): Promise<{ dir: string; head: string }> {
  const dir = projectRepositoryPath(t.deps.config.repositoryStorages, project) as string;
  const head = (await createRepository(dir, { defaultBranch: 'main', readme: { content: '# r\n', message: 'Initial commit', author: AUTHOR } })) as string;
  await t.deps.db.updateTable('projects').set({ default_branch: 'main', empty_repo: false }).where('id', '=', project.id).execute();
  return { dir, head };
}

/** A commit adding a new file on a branch (created from `from` when it does not exist yet). */
export async function commitOn(dir: string, branch: string, options: { from?: string; message?: string; date?: Date } = {}): Promise<string> {
  const file = `file-${++files}.txt`;
  const result = await createCommit(dir, {
    branch,
    startRevision: options.from,
    actions: [{ action: 'create', path: file, content: file }],
    message: options.message ?? `Add ${file}`,
    author: AUTHOR,
    date: options.date,
  });
  return result.id;
}

/** download_code in the access matrix: every reader of the project, except guests of a private one. */
export const codeReaders: Expectation = (role, visibility) => {
  const status = expectation({ auth: 'optional', success: 200 })(role, visibility);
  return status === 200 && visibility === 'private' && role !== 'admin' && ROLE_LEVEL[role] < ACCESS.REPORTER ? 403 : status;
};
