// A rebase without a work tree: the commits of a branch that its upstream lacks are replayed one by
// one onto the upstream, as `git rebase` picks them (merges dropped, commits whose change the
// upstream already has skipped, commits that become empty dropped), keeping each commit's author,
// date and message; the committer is who asked. Each pick is a three-way merge whose base is the
// picked commit's parent (mergeTreesOnBase). Only objects are written; no ref moves here.
import { requireObjectId } from './args.ts';
import { mergeTreesOnBase, treeOf, writeEmptyTree } from './merges.ts';
import { runGit } from './run.ts';
import type { Identity } from './signature.ts';

export interface RebaseRequest {
  /** The commit to replay onto (the target branch's head). */
  upstream: string;
  /** The head of the branch to rebase. */
  head: string;
  committer: Identity;
  date: Date;
}

/** The new head (the old one when nothing had to move), or the commit that did not apply cleanly. */
export type RebaseResult = { ok: true; head: string } | { ok: false; conflictAt: string };

interface RawCommit {
  parents: string[];
  tree: string;
  /** "Name <email> 1700000000 +0100". */
  author: string;
  message: string;
}

async function readRawCommit(gitDir: string, id: string): Promise<RawCommit> {
  const raw = (await runGit(gitDir, ['cat-file', 'commit', requireObjectId(id)])).stdout.toString('utf8');
  const end = raw.indexOf('\n\n');
  const headers = (end === -1 ? raw : raw.slice(0, end)).split('\n');
  const value = (name: string) => headers.filter((h) => h.startsWith(`${name} `)).map((h) => h.slice(name.length + 1));
  return { tree: value('tree')[0], parents: value('parent'), author: value('author')[0] ?? '', message: end === -1 ? '' : raw.slice(end + 2) };
}

/** The author variables of a raw ident line, date and offset as written. */
function authorEnv(line: string): Record<string, string> {
  const match = /^(.*?) ?<([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return {};
  return { GIT_AUTHOR_NAME: match[1], GIT_AUTHOR_EMAIL: match[2], GIT_AUTHOR_DATE: `@${match[3]} ${match[4]}` };
}

/** The commits `git rebase` would pick, oldest first. */
async function commitsToPick(gitDir: string, upstream: string, head: string): Promise<string[]> {
  const range = `${requireObjectId(upstream)}...${requireObjectId(head)}`;
  const { stdout } = await runGit(gitDir, ['rev-list', '--reverse', '--topo-order', '--no-merges', '--right-only', '--cherry-pick', '--end-of-options', range]);
  return stdout.toString('utf8').split('\n').filter(Boolean);
}

/** Replays the commits of `head` missing from `upstream` onto `upstream`. */
export async function rebaseOnto(gitDir: string, request: RebaseRequest): Promise<RebaseResult> {
  const upstream = requireObjectId(request.upstream);
  const picks = await commitsToPick(gitDir, upstream, request.head);
  let current = upstream;
  let currentTree = await treeOf(gitDir, current);
  const committer = { GIT_COMMITTER_NAME: request.committer.name, GIT_COMMITTER_EMAIL: request.committer.email, GIT_COMMITTER_DATE: `@${Math.floor(request.date.getTime() / 1000)} +0000` };
  for (const id of picks) {
    const commit = await readRawCommit(gitDir, id);
    const parent = commit.parents[0] ?? null;
    if (parent === current) {
      // Already in place: kept as it is, as git rebase fast-forwards over an unchanged start.
      current = id;
      currentTree = commit.tree;
      continue;
    }
    const baseTree = parent === null ? await writeEmptyTree(gitDir) : await treeOf(gitDir, parent);
    const merged = await mergeTreesOnBase(gitDir, baseTree, currentTree, commit.tree);
    if (!merged.clean) return { ok: false, conflictAt: id };
    // A change the upstream already holds leaves nothing to commit (a commit empty from the start is kept).
    if (merged.tree === currentTree && commit.tree !== baseTree) continue;
    const args = ['commit-tree', requireObjectId(merged.tree), '-p', current];
    const env = { ...authorEnv(commit.author), ...committer };
    current = (await runGit(gitDir, args, { env, input: commit.message })).stdout.toString('utf8').trim();
    currentTree = merged.tree;
  }
  // Nothing picked and nothing new: a branch already on its upstream keeps its head.
  return { ok: true, head: picks.length === 0 && (await isOnUpstream(gitDir, upstream, request.head)) ? request.head : current };
}

/** Whether `head` already contains `upstream` (then an empty pick list leaves it as it is). */
async function isOnUpstream(gitDir: string, upstream: string, head: string): Promise<boolean> {
  const { exitCode } = await runGit(gitDir, ['merge-base', '--is-ancestor', '--end-of-options', upstream, requireObjectId(head)], { okExitCodes: [1] });
  return exitCode === 0;
}
