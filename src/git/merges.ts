// What merge requests need of git: the merge base of two commits, the files changed between two
// commits with their patches, a merge of two commits without a work tree (`merge-tree
// --write-tree`, git 2.38+), and a commit of a tree. Commit ids only: callers resolve branches first.
import { requireObjectId } from './args.ts';
import { objectCache } from './object-cache.ts';
import { objectKey, openRepository } from './objects.ts';
import { runGit } from './run.ts';
import { type Identity, identityEnv } from './signature.ts';

/** The best common ancestor of two commits; null when they share no history. */
export async function mergeBase(gitDir: string, a: string, b: string): Promise<string | null> {
  const { stdout, exitCode } = await runGit(gitDir, ['merge-base', '--end-of-options', requireObjectId(a), requireObjectId(b)], { okExitCodes: [1] });
  return exitCode === 0 ? stdout.toString('utf8').trim() : null;
}

export interface FileChange {
  oldPath: string;
  newPath: string;
  aMode: string;
  bMode: string;
  newFile: boolean;
  renamedFile: boolean;
  deletedFile: boolean;
  /** The patch from its first hunk (or git's "Binary files … differ" line); empty for a pure rename or mode change. */
  diff: string;
}

/** A mode as the platform shows it: octal without leading zeros ("0" for an absent side). */
const octal = (mode: string) => Number.parseInt(mode, 8).toString(8);

/** Parses `diff-tree -z --raw` entries: `:mode mode id id status\0path\0[path\0]`. */
function parseRaw(raw: string): Omit<FileChange, 'diff'>[] {
  const parts = raw.split('\0');
  const out: Omit<FileChange, 'diff'>[] = [];
  for (let i = 0; i < parts.length; ) {
    const meta = parts[i++];
    if (!meta.startsWith(':')) continue;
    const [aMode, bMode, , , status] = meta.slice(1).split(' ');
    const letter = status[0];
    const first = parts[i++];
    const second = letter === 'R' || letter === 'C' ? parts[i++] : first;
    out.push({ oldPath: first, newPath: second, aMode: octal(aMode), bMode: octal(bMode), newFile: letter === 'A', deletedFile: letter === 'D', renamedFile: letter === 'R' });
  }
  return out;
}

/** Splits a patch into its files' parts (in diff-tree's order), each from its first hunk on. */
function splitPatch(patch: string): string[] {
  const files = patch.split(/^diff --git /m).slice(1);
  return files.map((text) => {
    const hunk = /^(@@|Binary files )/m.exec(text);
    return hunk ? text.slice(hunk.index) : '';
  });
}

/**
 * The files changed from `from` to `to` (renames found), with their patches. What two commit ids
 * give never changes, so the answer is kept in the object cache.
 */
export function changedFiles(gitDir: string, from: string, to: string): Promise<FileChange[]> {
  const args = ['-r', '-M', '--no-color', '--no-ext-diff', '--full-index', '--end-of-options', requireObjectId(from), requireObjectId(to)];
  const repo = openRepository(gitDir);
  return objectCache.remember(
    objectKey(repo, 'changes', from, to),
    async () => {
      const [raw, patch] = await Promise.all([runGit(gitDir, ['diff-tree', '-z', '--raw', ...args]), runGit(gitDir, ['diff-tree', '-p', ...args])]);
      const files = parseRaw(raw.stdout.toString('utf8'));
      const patches = splitPatch(patch.stdout.toString('utf8'));
      return files.map((file, i) => ({ ...file, diff: patches[i] ?? '' }));
    },
    (files) => files.reduce((n, f) => n + f.diff.length + f.oldPath.length + f.newPath.length + 64, 0),
  );
}

export interface MergeResult {
  /** The merged tree; with conflicts, the tree with conflict markers (not to be committed). */
  tree: string;
  clean: boolean;
}

/** Merges two commits as `git merge` would, without a work tree or index; the repository gains only objects. */
export async function mergeTrees(gitDir: string, ours: string, theirs: string): Promise<MergeResult> {
  const { stdout, exitCode } = await runGit(gitDir, ['merge-tree', '--write-tree', '--no-messages', '--name-only', '--end-of-options', requireObjectId(ours), requireObjectId(theirs)], {
    okExitCodes: [1],
  });
  return { tree: stdout.toString('utf8').split('\n', 1)[0].trim(), clean: exitCode === 0 };
}

export interface CommitTreeRequest {
  tree: string;
  parents: readonly string[];
  message: string;
  author: Identity;
  /** When the author wrote it, if not at the commit's date. */
  authorDate?: Date;
  committer: Identity;
  date: Date;
}

/** Writes a commit of a tree (no ref moves); its id. */
export async function commitTree(gitDir: string, request: CommitTreeRequest): Promise<string> {
  const env = { ...identityEnv('AUTHOR', request.author, request.authorDate ?? request.date), ...identityEnv('COMMITTER', request.committer, request.date) };
  const args = ['commit-tree', requireObjectId(request.tree), ...request.parents.flatMap((p) => ['-p', requireObjectId(p)])];
  return (await runGit(gitDir, args, { env, input: request.message })).stdout.toString('utf8').trim();
}

/** Who writes the scratch commits of a merge with a given base: fixed, so that the same trees give the same objects. */
const SCRATCH: Identity = { name: 'Quarry', email: 'merge@quarry.invalid' };
const EPOCH = new Date(0);

/** The empty tree, written into the repository (the base of a root commit's change). */
export async function writeEmptyTree(gitDir: string): Promise<string> {
  return (await runGit(gitDir, ['mktree'], { input: '' })).stdout.toString('utf8').trim();
}

/**
 * A three-way merge of two trees on a base tree of the caller's choosing (a cherry-pick's or a
 * revert's). Git 2.39's `merge-tree --write-tree` has no `--merge-base`, so the base is given as the
 * one common ancestor of two scratch commits, ours and theirs, each on a parentless commit of the
 * base tree. Only objects are written.
 */
export async function mergeTreesOnBase(gitDir: string, baseTree: string, oursTree: string, theirsTree: string): Promise<MergeResult> {
  const scratch = (tree: string, parents: string[]) => commitTree(gitDir, { tree, parents, message: 'merge scratch\n', author: SCRATCH, committer: SCRATCH, date: EPOCH });
  const base = await scratch(baseTree, []);
  const [ours, theirs] = await Promise.all([scratch(oursTree, [base]), scratch(theirsTree, [base])]);
  return mergeTrees(gitDir, ours, theirs);
}

/** The tree of a commit. */
export async function treeOf(gitDir: string, commit: string): Promise<string> {
  return (await runGit(gitDir, ['rev-parse', '--verify', '--end-of-options', `${requireObjectId(commit)}^{tree}`])).stdout.toString('utf8').trim();
}
