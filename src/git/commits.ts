// Commits, trees and blobs: reading them, and writing a commit from file actions without a work
// tree (a private index file, then write-tree, commit-tree and a compare-and-set on the branch).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ZERO_OID, requireBranchName, requireObjectId, requireRepoPath, requireRevision } from './args.ts';
import { resolveCommit, resolveRef, updateRef } from './refs.ts';
import { GitError, runGit } from './run.ts';
import { type Identity, type Signature, identityEnv, parseSignature } from './signature.ts';

export interface Commit {
  id: string;
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

/** Parses a raw commit object: headers (with continuation lines), a blank line, the message. */
export function parseCommit(id: string, raw: string): Commit {
  const end = raw.indexOf('\n\n');
  const headers = (end === -1 ? raw : raw.slice(0, end)).split('\n');
  const commit: Commit = { id, tree: '', parents: [], author: parseSignature(''), committer: parseSignature(''), message: end === -1 ? '' : raw.slice(end + 2) };
  for (const line of headers) {
    if (line.startsWith(' ')) continue; // continuation of gpgsig or mergetag
    const space = line.indexOf(' ');
    const key = line.slice(0, space);
    const value = line.slice(space + 1);
    if (key === 'tree') commit.tree = value;
    else if (key === 'parent') commit.parents.push(value);
    else if (key === 'author') commit.author = parseSignature(value);
    else if (key === 'committer') commit.committer = parseSignature(value);
  }
  return commit;
}

/** The commit a revision names (tags peeled); null when there is none. */
export async function getCommit(gitDir: string, revision: string): Promise<Commit | null> {
  const id = await resolveCommit(gitDir, revision);
  if (id === null) return null;
  const { stdout } = await runGit(gitDir, ['cat-file', 'commit', id]);
  return parseCommit(id, stdout.toString('utf8'));
}

export interface TreeEntry {
  id: string;
  /** The entry's name within its tree. */
  name: string;
  /** Its path from the repository's root. */
  path: string;
  type: 'blob' | 'tree' | 'commit';
  /** Octal, as git writes it: 100644, 100755, 120000 (symlink), 040000, 160000 (submodule). */
  mode: string;
  /** Blobs only. */
  size: number | null;
}

/** Parses `ls-tree -z --long`: "<mode> <type> <id> <size>\t<path>\0" (size padded, '-' for trees). */
function parseLsTree(output: Buffer, prefix: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of output.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, type, id, size] = record.slice(0, tab).split(/ +/);
    const relative = record.slice(tab + 1);
    const full = prefix ? `${prefix}/${relative}` : relative;
    entries.push({ id, name: full.slice(full.lastIndexOf('/') + 1), path: full, type: type as TreeEntry['type'], mode, size: size === '-' ? null : Number(size) });
  }
  return entries;
}

const MISSING_OBJECT = /Not a valid object name|not a tree object|bad file|bad object/i;

/**
 * The entries of a directory at a revision (the root when `dir` is empty), or all entries below
 * it, directories included, with `recursive`. Null when the revision or the directory does not exist.
 */
export async function readTree(gitDir: string, revision: string, dir = '', options: { recursive?: boolean } = {}): Promise<TreeEntry[] | null> {
  const prefix = dir === '' ? '' : requireRepoPath(dir);
  const commit = await resolveCommit(gitDir, revision);
  if (commit === null) return null;
  const args = ['ls-tree', '-z', '--long', ...(options.recursive ? ['-r', '-t'] : []), '--end-of-options', prefix ? `${commit}:${prefix}` : commit];
  try {
    return parseLsTree((await runGit(gitDir, args)).stdout, prefix);
  } catch (error) {
    if (error instanceof GitError && error.kind === 'failed' && MISSING_OBJECT.test(error.stderr)) return null;
    throw error;
  }
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
  const commit = await resolveCommit(gitDir, revision);
  if (commit === null) return null;
  const { stdout } = await runGit(gitDir, ['ls-tree', '-z', '--long', '--end-of-options', commit, file]);
  const entry = parseLsTree(stdout, '').find((e) => e.path === file && e.type === 'blob');
  if (!entry || entry.size === null) return null;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BLOB;
  if (entry.size > maxBytes) throw new GitError('output_limit', `${file} is larger than ${maxBytes} bytes`);
  const content = (await runGit(gitDir, ['cat-file', 'blob', entry.id], { maxOutput: maxBytes })).stdout;
  return { id: entry.id, path: file, mode: entry.mode, size: entry.size, content };
}

/** A blob's content by id; null when the repository has no such blob. */
export async function getBlob(gitDir: string, id: string, options: { maxBytes?: number } = {}): Promise<Buffer | null> {
  requireObjectId(id);
  try {
    return (await runGit(gitDir, ['cat-file', 'blob', id], { maxOutput: options.maxBytes ?? DEFAULT_MAX_BLOB })).stdout;
  } catch (error) {
    if (error instanceof GitError && error.kind === 'failed' && MISSING_OBJECT.test(error.stderr)) return null;
    throw error;
  }
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
  const isDirectory = (p: string) => {
    const below = `${p}/`;
    for (const [key, entry] of tree) if (entry && key.startsWith(below)) return true;
    return false;
  };
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

/** Reads the entries of a private index file: "<mode> <id> <stage>\t<path>\0". */
async function readIndex(gitDir: string, env: Record<string, string>): Promise<Map<string, IndexEntry | null>> {
  const { stdout } = await runGit(gitDir, ['ls-files', '--stage', '-z'], { env });
  const tree = new Map<string, IndexEntry | null>();
  for (const record of stdout.toString('utf8').split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, id] = record.slice(0, tab).split(' ');
    tree.set(record.slice(tab + 1), { mode, id });
  }
  return tree;
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
    if (parent !== null) await runGit(gitDir, ['read-tree', '--end-of-options', parent], { env });
    const tree = parent !== null ? await readIndex(gitDir, env) : new Map<string, IndexEntry | null>();
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
