// Where a project's repository lives and its lifecycle: create (optionally with a README commit),
// place, copy to another storage, delete, and the branch HEAD names.
//
// Repositories are laid out by project id, as the platform's hashed storage does:
// <storage>/@hashed/<aa>/<bb>/<sha256 of the id>.git. Renaming a project or moving it to another
// namespace changes no path, so those operations never touch the repository.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ownerTag, removeLeftoverEntries } from '../core/processes.ts';
import { requireBranchName } from './args.ts';
import { READ_ONLY_MARKER } from './hooks/hooks.ts';
import { createCommit } from './commits.ts';
import { storedHead } from './ref-store.ts';
import { runGit } from './run.ts';
import type { Identity } from './signature.ts';
import { type RepositoryStorages, storageDirectory } from './storages.ts';

/** A hashed path under an area of the storage: <area>/aa/bb/<sha256 of the id>.git. */
function hashedPath(area: string, id: number): string {
  const hash = createHash('sha256').update(String(id)).digest('hex');
  return `${area}/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.git`;
}

/** The repository's path relative to its storage: @hashed/aa/bb/<sha256>.git. */
export function repositoryRelativePath(projectId: number): string {
  return hashedPath('@hashed', projectId);
}

/** A snippet's repository, as the platform lays them out: @snippets/aa/bb/<sha256 of the snippet id>.git. */
export function snippetRepositoryPath(storageDir: string, snippetId: number): string {
  return path.join(storageDir, hashedPath('@snippets', snippetId));
}

export function repositoryPath(storageDir: string, projectId: number): string {
  return path.join(storageDir, repositoryRelativePath(projectId));
}

/** A project's wiki repository beside its repository, as the platform lays it out: @hashed/aa/bb/<sha256>.wiki.git. */
export function projectWikiRelativePath(projectId: number): string {
  return repositoryRelativePath(projectId).replace(/\.git$/, '.wiki.git');
}

/** A group's wiki repository: the group's id hashed under @groups, as the platform's group wikis are. */
export function groupWikiRelativePath(groupId: number): string {
  const hash = createHash('sha256').update(String(groupId)).digest('hex');
  return `@groups/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}.wiki.git`;
}

/** A project's repository path on the storage it records; null when that storage is not configured. */
export function projectRepositoryPath(storages: RepositoryStorages, project: { id: number; repository_storage: string }): string | null {
  const dir = storageDirectory(storages, project.repository_storage);
  return dir === null ? null : repositoryPath(dir, project.id);
}

/** The storage's scratch area: the same file system as its repositories, so moves in and out are renames. */
const scratchArea = (storageDir: string) => path.join(storageDir, '@tmp');

/**
 * A fresh path in the storage's scratch area, named after this process: a repository is built
 * there before its project exists, and only then placed.
 */
export function stagingRepositoryPath(storageDir: string): string {
  return path.join(scratchArea(storageDir), `${ownerTag()}.${randomBytes(12).toString('hex')}.git`);
}

/**
 * Removes what the scratch areas hold that is left over: built or deleted by a process of this
 * host that no longer runs, or older than maxAgeMs (another node's work is younger than its
 * longest git operation). Returns how many entries went.
 */
export async function removeScratchLeftovers(storages: RepositoryStorages, maxAgeMs: number): Promise<number> {
  let removed = 0;
  for (const storageDir of new Set(Object.values(storages))) removed += await removeLeftoverEntries(scratchArea(storageDir), maxAgeMs);
  return removed;
}

export function repositoryExists(gitDir: string): boolean {
  return fs.existsSync(path.join(gitDir, 'HEAD'));
}

/** A project's repository directory when its storage is configured and the repository exists; null otherwise. */
export function existingProjectRepository(storages: RepositoryStorages, project: { id: number; repository_storage: string }): string | null {
  const dir = projectRepositoryPath(storages, project);
  return dir !== null && repositoryExists(dir) ? dir : null;
}

export interface RepositoryInit {
  /** The branch HEAD names. */
  defaultBranch: string;
  /** One first commit on the default branch adding README.md. */
  readme?: { content: string; message: string; author: Identity; date?: Date };
}

/**
 * Creates a bare repository at gitDir (which must not exist) with HEAD on the default branch, and
 * the README commit when asked for. Returns that commit's id (null without one). On failure
 * nothing is left behind.
 */
export async function createRepository(gitDir: string, init: RepositoryInit): Promise<string | null> {
  requireBranchName(init.defaultBranch);
  await fs.promises.mkdir(path.dirname(gitDir), { recursive: true });
  // The parent existing, mkdir without `recursive` refuses a path that is already taken.
  await fs.promises.mkdir(gitDir);
  try {
    // An empty template: no sample hooks, no description file.
    await runGit(null, ['init', '--bare', '--quiet', '--template=', '--', gitDir]);
    await setDefaultBranch(gitDir, init.defaultBranch);
    if (!init.readme) return null;
    const { content, message, author, date } = init.readme;
    const commit = await createCommit(gitDir, { branch: init.defaultBranch, actions: [{ action: 'create', path: 'README.md', content }], message, author, date });
    return commit.id;
  } catch (error) {
    await deleteRepository(gitDir);
    throw error;
  }
}

export class RepositoryPathTaken extends Error {
  constructor(gitDir: string) {
    super(`a repository already exists at ${gitDir}, which no project of this database owns; it is left as it is`);
  }
}

/**
 * Moves a repository built at a staging path to its place. A place that is taken is never
 * overwritten or reused: it belongs to no project of this database (the caller has just been
 * given the id), so it is someone else's data (another instance sharing the directory), and the
 * placement fails loudly instead.
 */
export async function placeRepository(stagingDir: string, gitDir: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(gitDir), { recursive: true });
  // mkdir refuses an existing path atomically; rename then replaces the empty directory.
  try {
    await fs.promises.mkdir(gitDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new RepositoryPathTaken(gitDir);
    throw error;
  }
  await fs.promises.rename(stagingDir, gitDir);
}

/**
 * Moves whatever is at a repository's path aside, to `<storage>/@orphaned/`, where it stays until
 * an operator removes it; returns where it went. For a path that no project owns but that must be
 * used, such as one left by a creation cut short after placing its repository.
 */
export async function setAsideRepository(gitDir: string): Promise<string> {
  const orphaned = path.join(path.resolve(path.dirname(gitDir), '..', '..', '..'), '@orphaned');
  await fs.promises.mkdir(orphaned, { recursive: true });
  const aside = path.join(orphaned, `${path.basename(gitDir, '.git')}.${Date.now()}.${randomBytes(4).toString('hex')}.git`);
  await fs.promises.rename(gitDir, aside);
  return aside;
}

/**
 * Places a new repository, made for an id the database has just handed out: nothing of this
 * database owns that path, so what may be there was left by a creation cut short between placing
 * its repository and committing (SQLite hands an id out again after a rollback). It is set aside,
 * never deleted, and the path is used.
 */
export async function placeNewRepository(stagingDir: string, gitDir: string): Promise<void> {
  try {
    await placeRepository(stagingDir, gitDir);
  } catch (error) {
    if (!(error instanceof RepositoryPathTaken)) throw error;
    await setAsideRepository(gitDir);
    await placeRepository(stagingDir, gitDir);
  }
}

/**
 * Removes a repository; quiet when there is none. It is first renamed aside into its storage's
 * scratch area, so that the path never holds a half-deleted repository and a removal cut short is
 * cleared with the other leftovers.
 */
export async function deleteRepository(gitDir: string): Promise<void> {
  const area = scratchAreaOf(gitDir);
  const aside = path.join(area, `${ownerTag()}.deleted.${randomBytes(6).toString('hex')}`);
  try {
    await fs.promises.mkdir(area, { recursive: true });
    await fs.promises.rename(gitDir, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // A git process still writing into it (a push, a commit) may add files while it goes: try again.
  await fs.promises.rm(aside, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
}

/** The scratch area of the storage a repository (at @hashed/aa/bb/x.git) or a staging path (at @tmp/x) is in. */
function scratchAreaOf(gitDir: string): string {
  const parent = path.dirname(gitDir);
  return path.basename(parent) === '@tmp' ? parent : scratchArea(path.resolve(parent, '..', '..', '..'));
}

/** Removes every repository (and scratch area) of every storage, for `quarry reset`. */
export async function removeAllRepositories(storages: RepositoryStorages): Promise<void> {
  for (const dir of new Set(Object.values(storages))) {
    for (const area of ['@hashed', '@snippets', '@groups', '@tmp']) await fs.promises.rm(path.join(dir, area), { recursive: true, force: true });
  }
}

/**
 * Copies a project's repository into another storage, for a storage move; false when the project
 * has none. The caller keeps the repository read-only meanwhile, records the new storage, and
 * then deletes the original.
 */
export function copyRepository(projectId: number, fromStorageDir: string, toStorageDir: string): Promise<boolean> {
  return copyRepositoryAt(repositoryRelativePath(projectId), fromStorageDir, toStorageDir);
}

/** copyRepository for any repository by its path relative to its storage (a wiki's, say). */
export function copyRepositoryAt(relativePath: string, fromStorageDir: string, toStorageDir: string): Promise<boolean> {
  return copyRepositoryTo(path.join(fromStorageDir, relativePath), path.join(toStorageDir, relativePath), toStorageDir);
}

/** Copies the repository at `source` to `destination` in the storage `toStorageDir` (any kind of repository); false without one. */
export async function copyRepositoryTo(source: string, destination: string, toStorageDir: string): Promise<boolean> {
  if (!repositoryExists(source)) return false;
  const staging = stagingRepositoryPath(toStorageDir);
  try {
    // The read-only mark stays with the original: the copy is writable once it is switched to.
    const marker = path.join(source, READ_ONLY_MARKER);
    await fs.promises.cp(source, staging, { recursive: true, errorOnExist: true, force: false, filter: (from) => from !== marker });
    await placeRepository(staging, destination);
  } catch (error) {
    await deleteRepository(staging);
    throw error;
  }
  return true;
}

/**
 * Creates an empty bare repository at gitDir unless one is there: for repositories made on their
 * first write (wikis). A concurrent creator winning the race is as good as creating it.
 */
export async function ensureRepository(gitDir: string, defaultBranch: string): Promise<void> {
  if (repositoryExists(gitDir)) return;
  try {
    await createRepository(gitDir, { defaultBranch });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Makes every push to the repository refuse with `message` (see READ_ONLY_MARKER); quiet when it has gone. */
export async function markReadOnly(gitDir: string, message: string): Promise<void> {
  if (repositoryExists(gitDir)) await fs.promises.writeFile(path.join(gitDir, READ_ONLY_MARKER), `${message}\n`);
}

export async function unmarkReadOnly(gitDir: string): Promise<void> {
  await fs.promises.rm(path.join(gitDir, READ_ONLY_MARKER), { force: true });
}

/** Points HEAD at a branch (which need not exist yet: an empty repository's first push creates it). */
export async function setDefaultBranch(gitDir: string, branch: string): Promise<void> {
  await runGit(gitDir, ['symbolic-ref', '--', 'HEAD', `refs/heads/${requireBranchName(branch)}`]);
}

/** The branch HEAD names; null when HEAD is detached. From the HEAD file (ref-store.ts); git answers only what it cannot. */
export async function readDefaultBranch(gitDir: string): Promise<string | null> {
  const stored = storedHead(gitDir);
  if (stored !== undefined) return stored?.startsWith('refs/heads/') ? stored.slice('refs/heads/'.length) : null;
  const { stdout, exitCode } = await runGit(gitDir, ['symbolic-ref', '--quiet', 'HEAD'], { okExitCodes: [1] });
  const ref = stdout.toString('utf8').trim();
  return exitCode === 0 && ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}
