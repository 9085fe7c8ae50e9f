// Reverting and cherry-picking a commit onto a branch (the platform's Commits::RevertService and
// Commits::CherryPickService, 14.x): the same push check and read-only flag as any commit written
// through the API, the change worked out in git against the branch's head, then (unless it is a
// dry run) one commit on that head, the branch moved by compare-and-set and the push recorded, so
// that the post-push work (events, pipelines, merge requests, hooks) follows as after a push.
import type { LoadedProject } from '../../core/access/loaders.ts';
import type { ServiceContext } from '../../core/context.ts';
import { DomainError, apiError, notFound } from '../../core/errors.ts';
import { validBranchName } from '../../git/args.ts';
import type { Commit } from '../../git/commits.ts';
import { type PickKind, pickTree, writePickCommit } from '../../git/picks.ts';
import { resolveRef, updateRefs } from '../../git/refs.ts';
import { GitError } from '../../git/run.ts';
import { requireRepositoryDir } from '../../domain/project-repository.ts';
import { changeRefs } from '../pushes/push.service.ts';
import { assertRepositoryWritable, requirePushToBranch } from './commits.service.ts';

export interface PickRequest {
  kind: PickKind;
  commit: Commit;
  branch: string;
  dryRun: boolean;
  /** A cherry-pick's own message in place of the picked commit's. */
  message?: string;
}

const VERB: Record<PickKind, { verb: string; done: string }> = {
  revert: { verb: 'revert', done: 'reverted' },
  cherry_pick: { verb: 'cherry-pick', done: 'cherry-picked' },
};

/** The platform's refusal of a change that does not apply, with its Gitaly error code. */
function cannotPick(kind: PickKind, code: 'conflict' | 'empty'): DomainError {
  const { verb, done } = VERB[kind];
  const message = `Sorry, we cannot ${verb} this commit automatically. This commit may already have been ${done}, or a more recent commit may have updated some of its content.`;
  return new DomainError({ status: 400, message, extra: { error_code: code } });
}

/** Commit#full_title, trimmed. */
const titleOf = (message: string) => (message.trim() === '' ? 'No commit message' : message.split(/[\r\n]/, 1)[0].trim());

/** Commit#revert_message and Commit#cherry_pick_message. */
function defaultMessage(kind: PickKind, commit: Commit): string {
  if (kind === 'revert') return `Revert "${titleOf(commit.message)}"\n\nThis reverts commit ${commit.id}`;
  return `${commit.message.trimEnd()}\n\n(cherry picked from commit ${commit.id})`;
}

/** The branch's head, or 404 "404 Branch Not Found" (find_branch!). */
async function requireBranchHead(dir: string, branch: string): Promise<string> {
  const head = validBranchName(branch) ? await resolveRef(dir, `refs/heads/${branch}`) : null;
  if (head === null) throw notFound('Branch');
  return head;
}

/**
 * The id of the new commit on the branch, or null for a dry run that would succeed. The push check
 * comes first (a 403 whatever else is wrong), as the API authorizes before it looks anything up.
 */
export async function pickCommit(ctx: ServiceContext, project: LoadedProject, request: PickRequest): Promise<string | null> {
  const dir = requireRepositoryDir(ctx.config, project.row);
  const { kind, commit, branch } = request;
  const user = await requirePushToBranch(ctx, project, branch, { empty: false, refusal: 403 });
  const head = await requireBranchHead(dir, branch);
  // A dry run writes no ref, and takes no lease: it is told now what the pick would be told.
  if (request.dryRun) await assertRepositoryWritable(ctx, project.row.id);

  const picked = await pickTree(dir, kind, commit.id, head);
  if (!picked.ok) throw cannotPick(kind, picked.reason);
  if (request.dryRun) return null;

  const own = { name: user.name, email: user.commit_email || user.email };
  // A cherry-pick keeps its author and the time they wrote it; a revert is the writer's own.
  const author = kind === 'cherry_pick' ? { name: commit.author.name, email: commit.author.email } : own;
  const authorDate = kind === 'cherry_pick' ? new Date(commit.author.timestamp * 1000) : undefined;
  const message = request.message ?? defaultMessage(kind, commit);
  const ref = `refs/heads/${branch}`;
  let id = '';
  await changeRefs(ctx, project.row, user.id, [{ ref, before: head }], async () => {
    id = await writePickCommit(dir, { tree: picked.tree, head, message, author, authorDate, committer: own, date: ctx.now() });
    try {
      await updateRefs(dir, [{ ref, newId: id, oldId: head }]);
    } catch (error) {
      // Pushed to meanwhile: the change was worked out for an older head.
      if (error instanceof GitError && error.kind === 'conflict') throw apiError(400, `Could not update ${ref}. Please refresh and try again.`);
      throw error;
    }
    return [{ ref, before: head, after: id }];
  });
  return id;
}
