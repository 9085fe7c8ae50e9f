// Commits, trees and blobs: reading them (through the repository's object reader and the object
// cache, objects.ts), and writing a commit from file actions without a work tree (a private index
// file, then write-tree, commit-tree and a compare-and-set on the branch).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ZERO_OID, requireBranchName, requireObjectId, requireRepoPath, requireRevision } from './args.ts';
import { resolveCommit, resolveRef, updateRef } from './refs.ts';
import { type Commit, type Repository, type TreeItem, entryAtPath, openRepository, peelToCommit, readBlobContent, readCommit, readTreeObject } from './objects.ts';
import { GitError, runGit } from './run.ts';
import { type Identity, identityEnv } from './signature.ts';

export type { Commit } from './objects.ts';
export { parseCommit } from './objects.ts';

/** The commit a revision names (tags peeled); null when there is none. */
export async function getCommit(gitDir: string, revision: string): Promise<Commit | null> {
  const repo = openRepository(gitDir);
  const id = await peelToCommit(repo, revision);
  return id === null ? null : readCommit(repo, id);
}

export interface TreeEntry extends TreeItem {
  /** Its path from the repository's root. */
  path: string;
}

/** The entries of a tree in git's order, with their paths; with `recursive`, each subtree's entries follow it. */
async function listTree(repo: Repository, treeId: string, prefix: string, recursive: boolean): Promise<TreeEntry[]> {
  const items = (await readTreeObject(repo, treeId))?.items ?? [];
  const entries = items.map((item) => ({ ...item, path: prefix === '' ? item.name : `${prefix}/${item.name}` }));
  if (!recursive) return entries;
  // Subtrees are read at once (one pipelined request each), then placed after their tree's entry.
  const below = await Promise.all(entries.map((e) => (e.type === 'tree' ? listTree(repo, e.id, e.path, true) : [])));
  return entries.flatMap((entry, i) => [entry, ...below[i]]);
}

/**
 * The entries of a directory at a revision (the root when `dir` is empty), or all entries below
 * it, directories included, with `recursive` (as `git ls-tree -r -t` lists them). Null when the
 * revision or the directory does not exist.
 */
export async function readTree(gitDir: string, revision: string, dir = '', options: { recursive?: boolean } = {}): Promise<TreeEntry[] | null> {
  const prefix = dir === '' ? '' : requireRepoPath(dir);
  const repo = openRepository(gitDir);
  const commit = await peelToCommit(repo, revision);
  if (commit === null) return null;
  const tree = await entryAtPath(repo, commit, prefix);
  if (tree === null || tree.type !== 'tree') return null;
  return listTree(repo, tree.id, prefix, Boolean(options.recursive));
}

export interface Blob {
  id: string;
  path: string;
  mode: string;
  size: number;
  content: Buffer;
}

/** Largest blob read into memory unless the caller says otherwise. */
const DEFAULT_MAX_BLOB = 100 * 1024 * 1024;

/**
 * The file at a path at a revision, with its content; null when there is no file there. A file
 * larger than maxBytes rejects with a GitError 'output_limit' before it is read.
 */
export async function readBlob(gitDir: string, revision: string, filePath: string, options: { maxBytes?: number } = {}): Promise<Blob | null> {
  const file = requireRepoPath(filePath);
  const repo = openRepository(gitDir);
  const commit = await peelToCommit(repo, revision);
  if (commit === null) return null;
  const entry = await entryAtPath(repo, commit, file);
  if (entry === null || entry.type !== 'blob') return null;
  const content = await readBlobContent(repo, entry.id, options.maxBytes ?? DEFAULT_MAX_BLOB);
  if (content === null) return null;
  return { id: entry.id, path: file, mode: entry.mode, size: content.length, content };
}

/** A blob's content by id; null when the repository has no such blob. */
export async function getBlob(gitDir: string, id: string, options: { maxBytes?: number } = {}): Promise<Buffer | null> {
  return readBlobContent(openRepository(gitDir), requireObjectId(id), options.maxBytes ?? DEFAULT_MAX_BLOB);
}

// ---- Writing a commit --------------------------------------------------------------------------

export type FileAction =
  | { action: 'create'; path: string; content: Buffer | string; executable?: boolean }
  | { action: 'update'; path: string; content: Buffer | string; executable?: boolean }
  | { action: 'delete'; path: string }
  /** Without content, the file keeps its content. */
  | { action: 'move'; path: string; previousPath: string; content?: Buffer | string }
  | { action: 'chmod'; path: string; executable: boolean };

export type ActionErrorReason = 'file_exists' | 'directory_exists' | 'file_not_found';

/** The index errors' messages, as the platform's Gitaly words them. */
const ACTION_MESSAGES: Record<ActionErrorReason, string> = {
  file_exists: 'A file with this name already exists',
  directory_exists: 'A directory with this name already exists',
  file_not_found: "A file with this name doesn't exist",
};

/** An action that does not fit the tree it applies to. */
export class ActionError extends GitError {
  readonly reason: ActionErrorReason;
  readonly path: string;

  constructor(reason: ActionErrorReason, path: string) {
    super('invalid', ACTION_MESSAGES[reason]);
    this.reason = reason;
    this.path = path;
  }
}

export interface CommitRequest {
  /** The branch to commit on (short name); created when it does not exist. */
  branch: string;
  /** Where a new branch starts (a revision); absent, a new branch starts with a root commit. */
  startRevision?: string;
  /**
   * The branch head the caller checked the request against (null: the branch must not exist yet).
   * The branch then moves only from it, so that nothing committed after the check is overwritten.
   */
  expectedHead?: string | null;
  /** Start from startRevision even when the branch exists, replacing its history. */
  force?: boolean;
  actions: readonly FileAction[];
  message: string;
  author: Identity;
  /** Defaults to the author. */
  committer?: Identity;
  /** The commit's time for author and committer (default: now). */
  date?: Date;
}

export interface CommitResult {
  id: string;
  /** The commit it was made on; null for a root commit. */
  parent: string | null;
  branchCreated: boolean;
}

interface IndexEntry {
  mode: string;
  id: string;
}

const FILE_MODE = '100644';
const EXECUTABLE_MODE = '100755';

/** Applies the actions to the tree's entries (path → entry; null = removed), checking each as the platform does. */
function applyActions(tree: Map<string, IndexEntry | null>, actions: readonly FileAction[], blobs: readonly (string | null)[]): Set<string> {
  const touched = new Set<string>();
  const exists = (p: string) => Boolean(tree.get(p));
  // Files below each directory, kept as actions add and remove files: each check costs the path's
  // depth, not the tree's size (a commit of many actions on a large tree stays linear).
  const filesBelow = new Map<string, number>();
  const countBelow = (p: string, delta: number) => {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) {
      const dir = p.slice(0, i);
      filesBelow.set(dir, (filesBelow.get(dir) ?? 0) + delta);
    }
  };
  for (const [key, entry] of tree) if (entry) countBelow(key, 1);
  const isDirectory = (p: string) => (filesBelow.get(p) ?? 0) > 0;
  const parentIsFile = (p: string) => {
    for (let i = p.indexOf('/'); i !== -1; i = p.indexOf('/', i + 1)) if (exists(p.slice(0, i))) return true;
    return false;
  };
  const requireFree = (p: string) => {
    if (exists(p) || parentIsFile(p)) throw new ActionError('file_exists', p);
    if (isDirectory(p)) throw new ActionError('directory_exists', p);
  };
  const requireFile = (p: string) => {
    const entry = tree.get(p);
    if (!entry) throw new ActionError('file_not_found', p);
    return entry;
  };
  const set = (p: string, entry: IndexEntry | null) => {
    if (exists(p) !== Boolean(entry)) countBelow(p, entry ? 1 : -1);
    tree.set(p, entry);
    touched.add(p);
  };
  actions.forEach((action, i) => {
    const target = requireRepoPath(action.path);
    switch (action.action) {
      case 'create':
        requireFree(target);
        set(target, { mode: action.executable ? EXECUTABLE_MODE : FILE_MODE, id: blobs[i] as string });
        break;
      case 'update': {
        const current = requireFile(target);
        const mode = action.executable === undefined ? current.mode : action.executable ? EXECUTABLE_MODE : FILE_MODE;
        set(target, { mode, id: blobs[i] as string });
        break;
      }
      case 'delete':
        requireFile(target);
        set(target, null);
        break;
      case 'move': {
        const source = requireRepoPath(action.previousPath);
        const current = requireFile(source);
        set(source, null);
        requireFree(target);
        set(target, { mode: current.mode, id: blobs[i] ?? current.id });
        break;
      }
      case 'chmod': {
        const current = requireFile(target);
        set(target, { mode: action.executable ? EXECUTABLE_MODE : FILE_MODE, id: current.id });
        break;
      }
    }
  });
  return touched;
}

/** Writes the actions' contents as blobs in one git call; the id of each action's blob, or null. */
async function writeBlobs(gitDir: string, scratch: string, actions: readonly FileAction[]): Promise<(string | null)[]> {
  const files: string[] = [];
  const slots: (number | null)[] = [];
  for (const [i, action] of actions.entries()) {
    if (!('content' in action) || action.content === undefined) {
      slots.push(null);
      continue;
    }
    const file = path.join(scratch, `blob-${i}`);
    await fs.writeFile(file, action.content);
    slots.push(files.length);
    files.push(file);
  }
  if (files.length === 0) return slots.map(() => null);
  const { stdout } = await runGit(gitDir, ['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: files.map((f) => `${f}\n`).join('') });
  const ids = stdout.toString('utf8').trim().split('\n');
  return slots.map((slot) => (slot === null ? null : ids[slot]));
}

/** The mode the index gives a tree entry (git's create_ce_mode): links and submodules as they are, files 644 or 755. */
function indexMode(mode: string): string {
  if (mode === '120000' || mode === '160000') return mode;
  return (Number.parseInt(mode, 8) & 0o100) !== 0 ? EXECUTABLE_MODE : FILE_MODE;
}

/** The files (and submodules) of a commit's tree by path, as an index read from it holds them; read through the object reader. */
async function filesOf(repo: Repository, commitId: string): Promise<Map<string, IndexEntry | null>> {
  const commit = await readCommit(repo, commitId);
  if (commit === null) throw new GitError('invalid', `not a commit: ${commitId}`);
  const files = new Map<string, IndexEntry | null>();
  for (const entry of await listTree(repo, commit.tree, '', true)) {
    if (entry.type !== 'tree') files.set(entry.path, { mode: indexMode(entry.mode), id: entry.id });
  }
  return files;
}

/**
 * Commits file actions on a branch: on its head when it exists (unless `force`), else on
 * startRevision (or as a root commit). The branch moves only if it still points where it pointed when the commit was
 * built, so a concurrent writer makes this reject with a GitError 'conflict' instead of losing
 * either change. An action that does not fit the tree rejects with an ActionError.
 */
export async function createCommit(gitDir: string, request: CommitRequest): Promise<CommitResult> {
  const ref = `refs/heads/${requireBranchName(request.branch)}`;
  for (const action of request.actions) {
    requireRepoPath(action.path);
    if (action.action === 'move') requireRepoPath(action.previousPath);
  }
  const head = request.expectedHead === undefined ? await resolveRef(gitDir, ref) : request.expectedHead === null ? null : requireObjectId(request.expectedHead);
  let parent: string | null = request.force ? null : head;
  if (parent === null && request.startRevision !== undefined) {
    parent = await resolveCommit(gitDir, requireRevision(request.startRevision));
    if (parent === null) throw new GitError('invalid', `invalid start revision: ${JSON.stringify(request.startRevision)}`);
  }

  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'quarry-commit-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
    // The index is how git writes a tree (update-index, write-tree); what it holds is read through
    // the object reader, as every other read, meanwhile.
    const [tree] = await Promise.all([
      parent !== null ? filesOf(openRepository(gitDir), parent) : new Map<string, IndexEntry | null>(),
      parent !== null ? runGit(gitDir, ['read-tree', '--end-of-options', parent], { env }) : null,
    ]);
    const blobs = await writeBlobs(gitDir, scratch, request.actions);
    const touched = applyActions(tree, request.actions, blobs);

    // Removals first, so that a file may give way to a directory of the same name and back.
    let info = '';
    for (const p of touched) if (!tree.get(p)) info += `0 ${ZERO_OID}\t${p}\0`;
    for (const p of touched) {
      const entry = tree.get(p);
      if (entry) info += `${entry.mode} ${entry.id}\t${p}\0`;
    }
    await runGit(gitDir, ['update-index', '-z', '--index-info'], { env, input: info });
    const treeId = (await runGit(gitDir, ['write-tree'], { env })).stdout.toString('utf8').trim();

    const date = request.date ?? new Date();
    const commitEnv = { ...identityEnv('AUTHOR', request.author, date), ...identityEnv('COMMITTER', request.committer ?? request.author, date) };
    const commitArgs = ['commit-tree', treeId, ...(parent !== null ? ['-p', parent] : [])];
    const id = (await runGit(gitDir, commitArgs, { env: commitEnv, input: request.message })).stdout.toString('utf8').trim();

    await updateRef(gitDir, ref, id, head);
    return { id, parent, branchCreated: head === null };
  } finally {
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
