// Objects of a repository read through its long-lived reader (reader-pool.ts) and kept by id in
// the object cache: commits and trees parsed, small blobs whole, the id, type and size of anything.
// Revisions (`main`, `v1.0`, `main~2`) are resolved by the reader on every call: what a name points
// at may change, so it is never cached here. Every function takes the repository as opened at the
// start of the caller's operation (openRepository), so that its identity is read once.
import { requireObjectId, requireRepoPath, requireRevision } from './args.ts';
import type { ObjectData, ObjectInfo, ObjectType } from './cat-file.ts';
import { objectCache } from './object-cache.ts';
import { type Repository, readers } from './reader-pool.ts';
import { GitError, runGit } from './run.ts';
import { type Signature, parseSignature } from './signature.ts';

export { type Repository, openRepository } from './reader-pool.ts';

/** Blobs larger than this are read every time rather than kept. */
export const MAX_CACHED_BLOB = 1024 * 1024;

/** The cache key of something a repository's object ids determine. */
export function objectKey(repo: Repository, kind: string, ...parts: readonly string[]): string {
  return [kind, repo.dir, repo.identity, ...parts].join('\0');
}

// ---- Commits -----------------------------------------------------------------------------------

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

/** A rough size in memory of a parsed object read from `bytes` bytes. */
const parsedSize = (bytes: number) => bytes * 3 + 300;
const commitOf = (object: ObjectData) => parseCommit(object.id, object.content.toString('utf8'));
const commitSize = (commit: Commit) => parsedSize(commit.message.length + 200);

/** The object with this id, whole; null when the repository has none. Not cached: the callers cache what they parse. */
function readObject(repo: Repository, id: string): Promise<ObjectData | null> {
  return readers.contents(repo, requireObjectId(id));
}

/** The commit with this id; null when the repository has no such commit. */
export function readCommit(repo: Repository, id: string): Promise<Commit | null> {
  return objectCache.remember(
    objectKey(repo, 'commit', id),
    async () => {
      const object = await readObject(repo, id);
      return object?.type === 'commit' ? commitOf(object) : null;
    },
    (commit) => (commit === null ? null : commitSize(commit)),
  );
}

/**
 * The commit a revision names (tags peeled), as the reader resolves it now; null when it names
 * nothing or something other than a commit. A commit's own id answers without a round trip once
 * the commit has been read.
 */
export async function peelToCommit(repo: Repository, revision: string): Promise<string | null> {
  requireRevision(revision);
  // Reflog and upstream forms (`main@{1}`, `main@{u}`) are rare, and some make git die instead of
  // answering: they keep a rev-parse of their own, so that no request can end a shared reader.
  if (revision.includes('@{')) return revParseCommit(repo.dir, revision);
  if (objectCache.get(objectKey(repo, 'commit', revision))) return revision;
  const info = await readers.info(repo, `${revision}^{commit}`);
  return info?.type === 'commit' ? info.id : null;
}

/**
 * Reads a commit's first-parent line (the commit itself and `depth - 1` ancestors) and their root
 * trees into the cache in one pipelined batch: a walk down history then finds them there instead
 * of waiting on a round trip per commit and per tree.
 */
export async function prefetchFirstParents(repo: Repository, commitId: string, depth: number): Promise<void> {
  requireObjectId(commitId);
  const names = Array.from({ length: depth }, (_, i) => [`${commitId}~${i}`, `${commitId}~${i}^{tree}`]).flat();
  await Promise.all(
    names.map(async (name) => {
      // Only a head start: what fails here is read again, and reported, when it is needed.
      const object = await readers.contents(repo, name).catch(() => null);
      if (object?.type === 'commit') {
        const commit = commitOf(object);
        objectCache.set(objectKey(repo, 'commit', object.id), commit, commitSize(commit));
      } else if (object?.type === 'tree') {
        const tree = parseTree(object.content);
        objectCache.set(objectKey(repo, 'tree', object.id), tree, treeSize(tree));
      }
    }),
  );
}

/** Whether the commit is in the cache already. */
export const isCommitCached = (repo: Repository, id: string) => objectCache.get(objectKey(repo, 'commit', id)) !== undefined;

async function revParseCommit(gitDir: string, revision: string): Promise<string | null> {
  const { stdout, exitCode } = await runGit(gitDir, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`], { okExitCodes: [1] });
  const id = stdout.toString('utf8').trim();
  return exitCode === 0 && id !== '' ? id : null;
}

// ---- Trees -------------------------------------------------------------------------------------

export interface TreeItem {
  id: string;
  name: string;
  type: 'blob' | 'tree' | 'commit';
  /** Octal, as git writes it in listings: 100644, 100755, 120000 (symlink), 040000, 160000 (submodule). */
  mode: string;
}

/** Trees this large are indexed by name at their first lookup; smaller ones are searched. */
const INDEXED_TREE = 64;

export class Tree {
  /** In git's order. */
  readonly items: readonly TreeItem[];
  private index: Map<string, TreeItem> | null = null;

  constructor(items: readonly TreeItem[]) {
    this.items = items;
  }

  entry(name: string): TreeItem | null {
    if (this.items.length < INDEXED_TREE) return this.items.find((item) => item.name === name) ?? null;
    this.index ??= new Map(this.items.map((item) => [item.name, item]));
    return this.index.get(name) ?? null;
  }
}

/** Parses a raw tree object: "<octal mode> <name>\0<20-byte id>" per entry, in git's order. */
function parseTree(raw: Buffer): Tree {
  const items: TreeItem[] = [];
  let at = 0;
  while (at < raw.length) {
    const space = raw.indexOf(0x20, at);
    const nul = raw.indexOf(0, space);
    if (space === -1 || nul === -1 || nul + 21 > raw.length) throw new GitError('failed', 'malformed tree object');
    const mode = raw.toString('latin1', at, space).padStart(6, '0');
    const type = mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    items.push({ id: raw.toString('hex', nul + 1, nul + 21), name: raw.toString('utf8', space + 1, nul), type, mode });
    at = nul + 21;
  }
  return new Tree(items);
}

const treeSize = (tree: Tree) => parsedSize(tree.items.length * 60);

/** The tree with this id; null when the repository has no such tree. */
export function readTreeObject(repo: Repository, id: string): Promise<Tree | null> {
  return objectCache.remember(
    objectKey(repo, 'tree', id),
    async () => {
      const object = await readObject(repo, id);
      return object?.type === 'tree' ? parseTree(object.content) : null;
    },
    (tree) => (tree === null ? null : treeSize(tree)),
  );
}

/** The entry named `name` in a tree entry (null when it is no tree or has none). */
export async function childOf(repo: Repository, parent: TreeItem | null, name: string): Promise<TreeItem | null> {
  if (parent === null || parent.type !== 'tree') return null;
  return (await readTreeObject(repo, parent.id))?.entry(name) ?? null;
}

/** A commit's root tree as an entry. */
export const rootEntry = (tree: string): TreeItem => ({ id: tree, name: '', type: 'tree', mode: '040000' });

/**
 * The entry at a path in a commit's tree ('' for the root tree itself); null when the commit or
 * the path does not exist there.
 */
export async function entryAtPath(repo: Repository, commitId: string, entryPath: string): Promise<TreeItem | null> {
  const commit = await readCommit(repo, commitId);
  if (commit === null) return null;
  let entry: TreeItem | null = rootEntry(commit.tree);
  if (entryPath === '') return entry;
  for (const name of requireRepoPath(entryPath).split('/')) entry = await childOf(repo, entry, name);
  return entry;
}

// ---- Tags and types ----------------------------------------------------------------------------

export interface TagObject {
  id: string;
  /** The object tagged, and its type as the tag names it. */
  object: string;
  type: ObjectType;
  /** The tagger line's value ("Name <email> 1700000000 +0000"); null when the tag has none. */
  tagger: string | null;
  /** Everything after the headers, signature included. */
  message: string;
}

function parseTag(id: string, raw: string): TagObject {
  const end = raw.indexOf('\n\n');
  const tag: TagObject = { id, object: '', type: 'commit', tagger: null, message: end === -1 ? '' : raw.slice(end + 2) };
  for (const line of (end === -1 ? raw : raw.slice(0, end)).split('\n')) {
    const space = line.indexOf(' ');
    const value = line.slice(space + 1);
    if (line.startsWith('object ')) tag.object = value;
    else if (line.startsWith('type ')) tag.type = value as ObjectType;
    else if (line.startsWith('tagger ')) tag.tagger = value;
  }
  return tag;
}

/** The annotated tag object with this id; null when the repository has no such tag object. */
export function readTagObject(repo: Repository, id: string): Promise<TagObject | null> {
  return objectCache.remember(
    objectKey(repo, 'tag', id),
    async () => {
      const object = await readObject(repo, id);
      return object?.type === 'tag' ? parseTag(object.id, object.content.toString('utf8')) : null;
    },
    (tag) => (tag === null ? null : parsedSize(tag.message.length + 200)),
  );
}

/** The id, type and size of an object; null when the repository has none. */
function objectInfo(repo: Repository, id: string): Promise<ObjectInfo | null> {
  return objectCache.remember(objectKey(repo, 'info', id), () => readers.info(repo, requireObjectId(id)), (info) => (info === null ? null : 100));
}

/** The type of the object with this id; null when the repository has none. */
export async function objectType(repo: Repository, id: string): Promise<ObjectType | null> {
  return (await objectInfo(repo, id))?.type ?? null;
}

// ---- Blobs -------------------------------------------------------------------------------------

/**
 * The content of the blob with this id; null when the repository has no such blob. A blob larger
 * than maxBytes rejects with a GitError 'output_limit' before it is read. Blobs up to
 * MAX_CACHED_BLOB are kept.
 */
export async function readBlobContent(repo: Repository, id: string, maxBytes: number): Promise<Buffer | null> {
  const key = objectKey(repo, 'blob', id);
  const tooLarge = () => new GitError('output_limit', `blob ${id} is larger than ${maxBytes} bytes`);
  const kept = objectCache.get<Buffer>(key);
  if (kept !== undefined && kept.length > maxBytes) throw tooLarge();
  if (kept !== undefined) return kept;
  const info = await objectInfo(repo, id);
  if (info === null || info.type !== 'blob') return null;
  if (info.size > maxBytes) throw tooLarge();
  return objectCache.remember(
    key,
    async () => (await readObject(repo, id))?.content ?? null,
    (content) => (content !== null && content.length <= MAX_CACHED_BLOB ? content.length : null),
  );
}
