// Branches and tags with the commit each leads to, for lists that show each ref's commit, as
// `git for-each-ref` shows them: the refs from the ref files (ref-store.ts) and their objects
// through the object reader and cache, without a process, so that a branch or tag just written
// is shown without one too. Where the ref files cannot be read by us (ref-store.ts says when), one
// for-each-ref process reads them all.
import { requireRefName } from './args.ts';
import { type Commit, getCommit } from './commits.ts';
import { type Repository, objectType, openRepository, readCommit, readTagObject } from './objects.ts';
import type { Ref, RefType } from './refs.ts';
import { storedRef, storedRefsUnder } from './ref-store.ts';
import { GitError, runGit } from './run.ts';
import { parseSignature } from './signature.ts';
import { refMessage, refTrailers } from './trailers.ts';

export interface CommitDetails extends Commit {
  /** The message's trailers (`Signed-off-by: …`), unfolded; the last of a repeated key wins. */
  trailers: Record<string, string>;
}

export interface DetailedRef extends Ref {
  /** The commit the ref leads to (`commit`); null for a tag of a tree or a blob. */
  details: CommitDetails | null;
}

const PREFIXES: Record<RefType, string> = { branch: 'refs/heads/', tag: 'refs/tags/' };

/** A field of the commit: the ref's own object, or the one an annotated tag points at. */
const ofCommit = (field: string) => `%(if:equals=tag)%(objecttype)%(then)%(*${field})%(else)%(${field})%(end)`;
/** A field of an annotated tag itself (empty for anything else). */
const ofTag = (field: string) => `%(if:equals=tag)%(objecttype)%(then)%(${field})%(end)`;
// Trailers joined by RS, key and value by US: neither may appear in a trailer git has unfolded
// (control characters end a trailer key, and values are single lines).
const TRAILERS = 'trailers:only,unfold,separator=%x1e,key_value_separator=%x1f';

// One record per ref: NUL-terminated fields, the free texts last. git writes texts as C strings,
// so a NUL inside a message (which only a hand-made object can hold) never reaches the output.
const FIELDS = [
  '%(refname)',
  '%(objectname)',
  '%(objecttype)',
  '%(*objectname)',
  '%(*objecttype)',
  ofCommit('tree'),
  ofCommit('parent'),
  ofCommit('author'),
  ofCommit('committer'),
  ofCommit(TRAILERS),
  ofTag('tagger'),
  ofTag('contents'),
  ofCommit('contents'),
];
const FORMAT = FIELDS.map((field) => `${field}%00`).join('');

function parseTrailers(text: string): Record<string, string> {
  const trailers: Record<string, string> = {};
  for (const entry of text.split('\x1e')) {
    const separator = entry.indexOf('\x1f');
    if (separator > 0) trailers[entry.slice(0, separator)] = entry.slice(separator + 1);
  }
  return trailers;
}

/** A commit as for-each-ref shows it, with its trailers. */
const detailsOf = (commit: Commit): CommitDetails => ({ ...commit, message: refMessage(commit.message), trailers: refTrailers(commit.message) });

/** One ref with its objects read through the reader; null when its object is missing (git leaves such a ref out). */
async function detailedRef(repo: Repository, ref: string, objectId: string): Promise<DetailedRef | null> {
  const type: RefType = ref.startsWith(PREFIXES.tag) ? 'tag' : 'branch';
  const base = { ref, name: ref.slice(PREFIXES[type].length), type, target: objectId };
  const objectKind = await objectType(repo, objectId);
  if (objectKind === null) return null;
  if (objectKind === 'commit') {
    const commit = await readCommit(repo, objectId);
    return commit && { ...base, commit: objectId, tag: null, details: detailsOf(commit) };
  }
  if (objectKind !== 'tag') return { ...base, commit: null, tag: null, details: null };
  const tagObject = await readTagObject(repo, objectId);
  if (tagObject === null) return null;
  let details: CommitDetails | null = null;
  if (tagObject.type === 'commit') {
    const commit = await readCommit(repo, tagObject.object);
    details = commit && detailsOf(commit);
  } else if (tagObject.type === 'tag') {
    // A tag of a tag, which for-each-ref peels only once: the commit at its end, without trailers.
    const commit = await getCommit(repo.dir, objectId);
    details = commit && { ...commit, trailers: {} };
  }
  const tagger = tagObject.tagger === null ? null : parseSignature(tagObject.tagger);
  return { ...base, commit: details?.id ?? null, tag: { id: objectId, message: refMessage(tagObject.message), tagger }, details };
}

/** Refs (full name → object id) with their objects, in git's order (byte order of names). */
async function detailedRefs(gitDir: string, refs: ReadonlyMap<string, string>): Promise<DetailedRef[]> {
  const repo = openRepository(gitDir);
  const names = [...refs.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const found = await Promise.all(names.map((name) => detailedRef(repo, name, refs.get(name) as string)));
  return found.filter((ref) => ref !== null);
}

async function readDetailedRefsWithGit(gitDir: string, patterns: readonly string[]): Promise<DetailedRef[]> {
  const { stdout } = await runGit(gitDir, ['for-each-ref', `--format=${FORMAT}`, '--', ...patterns]);
  const fields = stdout.toString('utf8').split('\0');
  fields.pop();
  if (fields.length % FIELDS.length !== 0) throw new GitError('failed', 'git for-each-ref: unexpected output');
  const refs: DetailedRef[] = [];
  for (let i = 0; i < fields.length; i += FIELDS.length) {
    const [refname, objectId, objectType, peeledId, peeledType, tree, parents, author, committer, trailers, tagger, tagMessage, message] = fields.slice(i, i + FIELDS.length);
    // Every record after the first starts with the newline that ended the one before.
    const ref = refname.replace(/^\n/, '');
    const type: RefType = ref.startsWith(PREFIXES.tag) ? 'tag' : 'branch';
    const annotated = objectType === 'tag';
    const commitId = objectType === 'commit' ? objectId : peeledType === 'commit' ? peeledId : null;
    let details: CommitDetails | null = null;
    if (commitId !== null) {
      details = {
        id: commitId,
        tree,
        parents: parents === '' ? [] : parents.split(' '),
        author: parseSignature(author),
        committer: parseSignature(committer),
        message,
        trailers: parseTrailers(trailers),
      };
    } else if (annotated && peeledType === 'tag') {
      // A tag of a tag, which for-each-ref peels only once: read the commit at its end (if any)
      // on its own, without trailers. Rare enough to cost a process or two.
      const commit = await getCommit(gitDir, objectId);
      details = commit && { ...commit, trailers: {} };
    }
    refs.push({
      ref,
      name: ref.slice(PREFIXES[type].length),
      type,
      target: objectId,
      commit: details?.id ?? null,
      tag: annotated ? { id: objectId, message: tagMessage, tagger: tagger === '' ? null : parseSignature(tagger) } : null,
      details,
    });
  }
  return refs;
}

/** Every branch or every tag with its commit, ordered by name (byte order, as git sorts). */
export function listDetailedRefs(gitDir: string, type: RefType): Promise<DetailedRef[]> {
  const stored = storedRefsUnder(gitDir, PREFIXES[type]);
  return stored === undefined ? readDetailedRefsWithGit(gitDir, [PREFIXES[type]]) : detailedRefs(gitDir, stored);
}

/** Some refs by their full names, with their commits; absent ones are missing from the map. */
export async function getDetailedRefs(gitDir: string, refs: readonly string[]): Promise<Map<string, DetailedRef>> {
  for (const ref of refs) requireRefName(ref);
  // No pattern at all would list every ref.
  if (refs.length === 0) return new Map();
  const wanted = new Set(refs);
  const stored = new Map<string, string>();
  for (const ref of wanted) {
    const id = storedRef(gitDir, ref);
    if (id === undefined) {
      // A pattern also matches the refs below it (refs/heads/a matches refs/heads/a/b): keep the exact ones.
      const found = await readDetailedRefsWithGit(gitDir, [...wanted]);
      return new Map(found.filter((r) => wanted.has(r.ref)).map((r) => [r.ref, r]));
    }
    if (id !== null) stored.set(ref, id);
  }
  return new Map((await detailedRefs(gitDir, stored)).map((r) => [r.ref, r]));
}
