// Branches and tags: reading them, resolving names to commits, and changing them with a
// compare-and-set on the old value, so that of two writers racing on one ref exactly one wins.
import { ZERO_OID, requireObjectId, requireRefName, requireRevision } from './args.ts';
import { openRepository, peelToCommit } from './objects.ts';
import { anyStoredRefUnder, storedRef } from './ref-store.ts';
import { GitError, runGit } from './run.ts';
import { type Signature, parseSignature } from './signature.ts';

export type RefType = 'branch' | 'tag';

export interface AnnotatedTag {
  /** The tag object's id (a ref's `target`). */
  id: string;
  message: string;
  tagger: Signature | null;
}

export interface Ref {
  /** Full name: refs/heads/main, refs/tags/v1.0. */
  ref: string;
  /** Name without its refs/heads/ or refs/tags/ prefix. */
  name: string;
  type: RefType;
  /** The object the ref points at: a commit, or the tag object of an annotated tag. */
  target: string;
  /** The commit it leads to; null for a tag of a tree or a blob. */
  commit: string | null;
  /** Annotated tags only. */
  tag: AnnotatedTag | null;
}

const PREFIXES: Record<RefType, string> = { branch: 'refs/heads/', tag: 'refs/tags/' };

/** Only annotated tags carry a tagger and a message (a branch's would be its commit's). */
const ofTags = (field: string) => `%(if:equals=tag)%(objecttype)%(then)${field}%(end)`;
// One record per ref: NUL-terminated fields, the message last (for-each-ref ends a record with a newline).
const FORMAT = ['%(refname)', '%(objectname)', '%(objecttype)', '%(*objectname)', '%(*objecttype)', ofTags('%(taggername) %(taggeremail) %(taggerdate:raw)'), ofTags('%(contents)')]
  .map((field) => `${field}%00`)
  .join('');
const FIELDS = 7;

async function readRefs(gitDir: string, patterns: string[]): Promise<Ref[]> {
  const { stdout } = await runGit(gitDir, ['for-each-ref', `--format=${FORMAT}`, '--', ...patterns]);
  const fields = stdout.toString('utf8').split('\0');
  fields.pop();
  if (fields.length % FIELDS !== 0) throw new GitError('failed', 'git for-each-ref: unexpected output');
  const refs: Ref[] = [];
  for (let i = 0; i < fields.length; i += FIELDS) {
    const [refname, objectId, objectType, peeledId, peeledType, tagger, message] = fields.slice(i, i + FIELDS);
    // Every record after the first starts with the newline that ended the one before.
    const ref = refname.replace(/^\n/, '');
    const type: RefType = ref.startsWith(PREFIXES.tag) ? 'tag' : 'branch';
    const annotated = objectType === 'tag';
    let commit: string | null = objectType === 'commit' ? objectId : peeledType === 'commit' ? peeledId : null;
    // A tag of a tag: peel all the way down.
    if (annotated && peeledType === 'tag') commit = await resolveCommit(gitDir, objectId);
    refs.push({
      ref,
      name: ref.slice(PREFIXES[type].length),
      type,
      target: objectId,
      commit,
      tag: annotated ? { id: objectId, message, tagger: tagger.trim() === '' ? null : parseSignature(tagger) } : null,
    });
  }
  return refs;
}

/** Branches and tags (or one kind), ordered by full name. */
export async function listRefs(gitDir: string, options: { type?: RefType } = {}): Promise<Ref[]> {
  return readRefs(gitDir, options.type ? [PREFIXES[options.type]] : [PREFIXES.branch, PREFIXES.tag]);
}

/** One branch or tag by its full name; null when absent. */
export async function getRef(gitDir: string, ref: string): Promise<Ref | null> {
  requireRefName(ref);
  // The pattern also matches refs below it (refs/heads/a matches refs/heads/a/b): keep the exact one.
  return (await readRefs(gitDir, [ref])).find((r) => r.ref === ref) ?? null;
}

/**
 * The object id a full ref name points at (unpeeled); null when the ref does not exist. Read from
 * the ref files (ref-store.ts), fresh, without a process; git answers only what they cannot.
 */
export async function resolveRef(gitDir: string, ref: string): Promise<string | null> {
  requireRefName(ref);
  const stored = storedRef(gitDir, ref);
  if (stored !== undefined) return stored;
  const { stdout } = await runGit(gitDir, ['for-each-ref', '--format=%(refname)%00%(objectname)', '--', ref]);
  for (const line of stdout.toString('utf8').split('\n')) {
    const [name, id] = line.split('\0');
    if (name === ref) return id;
  }
  return null;
}

/**
 * The commit a revision names (an object id, a branch, a tag, `main~2`…), peeling tags; null when
 * it names nothing or something other than a commit.
 */
export async function resolveCommit(gitDir: string, revision: string): Promise<string | null> {
  // The repository's object reader resolves it as rev-parse would, without a process of its own.
  return peelToCommit(openRepository(gitDir), revision);
}

/** Whether any branch exists: a repository without one is empty. From the ref files, as resolveRef. */
export async function hasBranches(gitDir: string): Promise<boolean> {
  const stored = anyStoredRefUnder(gitDir, PREFIXES.branch);
  if (stored !== undefined) return stored;
  const { stdout } = await runGit(gitDir, ['for-each-ref', '--count=1', '--format=%(refname)', '--', PREFIXES.branch]);
  return stdout.length > 0;
}

/** One ref's change as it happened: full ref name, and 40-hex ids (ZERO_OID from args.ts when created or deleted). */
export interface RefUpdate {
  ref: string;
  before: string;
  after: string;
}

export interface RefChange {
  /** Full ref name. */
  ref: string;
  /** The new object id; null deletes the ref. */
  newId: string | null;
  /**
   * What the ref must hold for the change to apply: an object id, null for "must not exist", or
   * undefined for no check.
   */
  oldId?: string | null;
}

/**
 * Applies ref changes in one transaction: all or none. A compare-and-set that does not hold (the
 * ref moved, already exists, or another writer holds its lock) rejects with a GitError 'conflict'.
 */
export async function updateRefs(gitDir: string, changes: readonly RefChange[]): Promise<void> {
  let input = '';
  for (const change of changes) {
    requireRefName(change.ref);
    const oldId = change.oldId === undefined ? '' : change.oldId === null ? ZERO_OID : requireObjectId(change.oldId);
    if (change.newId === null) input += `delete ${change.ref}\0${oldId}\0`;
    else input += `update ${change.ref}\0${requireObjectId(change.newId)}\0${oldId}\0`;
  }
  if (input === '') return;
  try {
    await runGit(gitDir, ['update-ref', '--stdin', '-z'], { input });
  } catch (error) {
    if (error instanceof GitError && error.kind === 'failed' && error.stderr.includes('cannot lock ref')) {
      throw new GitError('conflict', error.message, { args: error.args, exitCode: error.exitCode, stderr: error.stderr });
    }
    throw error;
  }
}

/** Points a ref at newId if it still holds oldId (see RefChange). */
export function updateRef(gitDir: string, ref: string, newId: string, oldId?: string | null): Promise<void> {
  return updateRefs(gitDir, [{ ref, newId, oldId }]);
}

/** Deletes a ref if it still holds oldId (undefined: whatever it holds). */
export function deleteRef(gitDir: string, ref: string, oldId?: string): Promise<void> {
  return updateRefs(gitDir, [{ ref, newId: null, oldId }]);
}

/** Whether `ancestor` is reachable from `descendant` (a commit is its own ancestor). */
export async function isAncestor(gitDir: string, ancestor: string, descendant: string): Promise<boolean> {
  const { exitCode } = await runGit(gitDir, ['merge-base', '--is-ancestor', '--end-of-options', requireRevision(ancestor), requireRevision(descendant)], { okExitCodes: [1] });
  return exitCode === 0;
}
