// Merging (14.x PUT …/merge and MergeRequests::MergeService / FfMergeService / SquashService): a real
// merge in the bare repository. The refusals come in the platform's order: 401 for whoever may not
// merge into the target branch, 405 while the merge request is not in a mergeable state, 406 when
// git finds conflicts or the project's merge method needs a fast-forward that is not possible, 409
// for a stale `sha`. The target moves by compare-and-set from the head the merge was built on, and
// the change of refs is recorded as any push is (changeRefs: push event, post-push work).
import type { LoadedProject } from '../../core/access/loaders.ts';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { apiError, methodNotAllowed, unauthorized } from '../../core/errors.ts';
import type { CiPipelineRow, MergeRequestRow, UserRow } from '../../db/schema.ts';
import { projectLabelScope } from '../../domain/labels.ts';
import { requireRepositoryDir } from '../../domain/project-repository.ts';
import { recordStateEvent } from '../../domain/resource-events.ts';
import { type RefProtections, canDeleteBranch, canMergeToBranch, pusherOf } from '../../domain/ref-protection.ts';
import type { ProjectSettingValues } from '../../domain/settings/project-settings.ts';
import { commitTree, mergeBase, mergeTrees } from '../../git/merges.ts';
import { type RefChange, type RefUpdate, isAncestor, updateRefs } from '../../git/refs.ts';
import { GitError } from '../../git/run.ts';
import type { Identity } from '../../git/signature.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../events/events.service.ts';
import { findIssueByIid } from '../issues/issues.finder.ts';
import { updateIssue } from '../issues/issues.service.ts';
import { addSystemNote } from '../notes/notes.service.ts';
import { mergeRequestHeadPipeline } from '../pipelines/pipelines.finder.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { changeRefs } from '../pushes/push.service.ts';
import { resolveTodos } from '../todos/todos.service.ts';
import { enableAutoMerge } from './auto-merge.ts';
import { closingIssueIids, closingText } from './closing-issues.ts';
import { noteableOf, todoTargetOf } from './merge-requests.service.ts';
import { branchHead } from './merge-state.ts';

export interface MergeParams {
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
  squash?: boolean;
  shouldRemoveSourceBranch?: boolean;
  sha?: string;
  /** Merge once the head pipeline succeeds, when it is still running. */
  mergeWhenPipelineSucceeds?: boolean;
}

const CANNOT_MERGE = 'Branch cannot be merged';

/** Array#to_sentence: "a", "a and b", "a, b, and c". */
const sentence = (items: string[]) => (items.length <= 2 ? items.join(' and ') : `${items.slice(0, -1).join(', ')}, and ${items.at(-1)}`);

/** The platform's default merge commit message (MergeRequest#default_merge_commit_message). */
export function defaultMergeMessage(mr: MergeRequestRow, projectFullPath: string, closing: number[]): string {
  const parts = [`Merge branch '${mr.source_branch}' into '${mr.target_branch}'`, mr.title];
  if (closing.length > 0) parts.push(`Closes ${sentence(closing.map((iid) => `#${iid}`))}`);
  parts.push(`See merge request ${projectFullPath}!${mr.iid}`);
  return parts.join('\n\n');
}

/** Pipeline statuses that may still end in success (Ci::HasStatus::ACTIVE_STATUSES). */
const ACTIVE = ['waiting_for_resource', 'preparing', 'pending', 'running'];

/** Whether the head pipeline lets the merge request merge, when the project asks for one (mergeable_ci_state?). */
function ciAllows(head: Pick<CiPipelineRow, 'status'> | null, settings: ProjectSettingValues): boolean {
  if (!settings.settings.only_allow_merge_if_pipeline_succeeds) return true;
  if (!head) return false;
  return head.status === 'success' || (head.status === 'skipped' && settings.settings.allow_merge_on_skipped_pipeline === true);
}

const identityOf = (user: Pick<UserRow, 'name' | 'email' | 'commit_email'>): Identity => ({ name: user.name, email: user.commit_email || user.email });

/**
 * PUT …/merge_requests/:iid/merge: the merged merge request, or, with `mergeWhenPipelineSucceeds`
 * while its head pipeline runs, the merge request set to merge once that pipeline succeeds.
 */
export async function mergeMergeRequest(ctx: ServiceContext, project: LoadedProject, mr: MergeRequestRow, params: MergeParams, settings: ProjectSettingValues): Promise<MergeRequestRow> {
  const actor = requireActor(ctx);
  const gitDir = requireRepositoryDir(ctx.config, project.row);
  const protections = await loadRefProtections(ctx.db, project.row.id);
  const pusher = pusherOf(project, actor);
  if (!canMergeToBranch(protections, mr.target_branch, pusher)) throw unauthorized();

  const [source, target] = await Promise.all([branchHead(gitDir, mr.source_branch), branchHead(gitDir, mr.target_branch)]);
  const broken = source === null || target === null || (await isAncestor(gitDir, source, target)) || mr.merge_status === 'cannot_be_merged';
  const head = source === null ? null : await mergeRequestHeadPipeline(ctx.db, mr, source);
  // The platform's mergeable_state? without the pipeline, then with it.
  const mergeableState = mr.state === 'opened' && !mr.draft && !broken;
  const automatic = params.mergeWhenPipelineSucceeds === true && mergeableState && head !== null && ACTIVE.includes(head.status);
  const immediate = params.mergeWhenPipelineSucceeds === true ? head?.status === 'success' : mergeableState && ciAllows(head, settings);
  if (!immediate && !automatic) throw methodNotAllowed();
  if (!mergeableState || !(automatic || ciAllows(head, settings))) throw apiError(406, CANNOT_MERGE);

  const merged = await mergeTrees(gitDir, target as string, source as string);
  if (!merged.clean) {
    await ctx.db.updateTable('merge_requests').set({ merge_status: 'cannot_be_merged' }).where('id', '=', mr.id).execute();
    throw apiError(406, CANNOT_MERGE);
  }
  const method = settings.settings.merge_method;
  if (method !== 'merge' && !(await isAncestor(gitDir, target as string, source as string))) throw apiError(406, CANNOT_MERGE);
  if (params.sha !== undefined && params.sha !== source) throw apiError(409, `SHA does not match HEAD of source branch: ${source}`);
  if (!immediate) return enableAutoMerge(ctx, mr, source as string, params);
  return performMerge(ctx, project, mr, params, settings, { gitDir, protections, source: source as string, target: target as string, tree: merged.tree });
}

interface MergeBase {
  gitDir: string;
  protections: RefProtections;
  source: string;
  target: string;
  /** The merged tree. */
  tree: string;
}

/** The merge itself, once every check passed: its commits, the move of the target branch, the merge request's row, note and event. */
async function performMerge(ctx: ServiceContext, project: LoadedProject, mr: MergeRequestRow, params: MergeParams, settings: ProjectSettingValues, at: MergeBase): Promise<MergeRequestRow> {
  const actor = requireActor(ctx);
  const { gitDir, source, target, protections } = at;
  const pusher = pusherOf(project, actor);
  const method = settings.settings.merge_method;
  const option = settings.settings.squash_option;
  const squash = option === 'always' ? true : option === 'never' ? false : (params.squash ?? Boolean(mr.squash));
  const toDefault = project.row.default_branch === mr.target_branch;
  const closing = toDefault ? closingIssueIids(await closingText(gitDir, { ...mr, base_sha: await mergeBase(gitDir, target, source), head_sha: source })) : [];
  const merger = identityOf(actor.user);
  const date = ctx.now();
  const author = mr.author_id === null ? undefined : await ctx.db.selectFrom('users').select(['name', 'email', 'commit_email']).where('id', '=', mr.author_id).executeTakeFirst();
  let head = source;
  let squashSha: string | null = null;
  if (squash) {
    // One commit on top of the target with the merged tree, by the merge request's author.
    squashSha = await commitTree(gitDir, { tree: at.tree, parents: [target], message: params.squashCommitMessage ?? mr.title, author: author ? identityOf(author) : merger, committer: merger, date });
    head = squashSha;
  }
  const mergeSha =
    method === 'ff'
      ? null
      : await commitTree(gitDir, { tree: at.tree, parents: [target, head], message: params.mergeCommitMessage ?? defaultMergeMessage(mr, project.row.full_path, closing), author: merger, committer: merger, date });
  const newTarget = mergeSha ?? head;

  const wantsRemoval = params.shouldRemoveSourceBranch ?? Boolean(mr.force_remove_source_branch);
  const remove = wantsRemoval && canDeleteBranch(protections, mr.source_branch, pusher, { defaultBranch: project.row.default_branch, viaWeb: true });
  const changes: RefChange[] = [{ ref: `refs/heads/${mr.target_branch}`, newId: newTarget, oldId: target }];
  if (remove) changes.push({ ref: `refs/heads/${mr.source_branch}`, newId: null, oldId: source });
  await changeRefs(
    ctx,
    project.row,
    actor.user.id,
    changes.map((c) => ({ ref: c.ref, before: c.oldId as string })),
    async (): Promise<RefUpdate[]> => {
      try {
        await updateRefs(gitDir, changes);
      } catch (error) {
        // A branch moved meanwhile: the merge was built on what is no longer there.
        if (error instanceof GitError && error.kind === 'conflict') throw apiError(406, CANNOT_MERGE);
        throw error;
      }
      return changes.map((c) => ({ ref: c.ref, before: c.oldId as string, after: c.newId ?? '0'.repeat(40) }));
    },
  );

  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const row = await tx.db
      .updateTable('merge_requests')
      .set({
        state: 'merged',
        merge_status: 'can_be_merged',
        merged_by_id: actor.user.id,
        merged_at: at,
        merge_commit_sha: mergeSha,
        squash_commit_sha: squashSha,
        squash,
        sha: source,
        start_sha: target,
        head_sha: source,
        should_remove_source_branch: wantsRemoval,
        merge_error: null,
        merge_when_pipeline_succeeds: false,
        merge_params: null,
        updated_at: at,
        updated_by_id: actor.user.id,
      })
      .where('id', '=', mr.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await addSystemNote(tx, noteableOf(mr), 'merged');
    await recordStateEvent(tx, { type: 'MergeRequest', id: mr.id }, actor.user.id, 'merged', at);
    await resolveTodos(tx, todoTargetOf(mr), actor.user.id);
    await recordEvent(tx, { projectId: mr.project_id, authorId: actor.user.id, action: 'merged', targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title });
    await enqueueHookEvent(tx.db, { projectId: mr.project_id }, { kind: 'merge_request', mergeRequestId: mr.id, userId: actor.user.id, action: 'merge' });
    if (settings.settings.autoclose_referenced_issues) await closeIssues(tx, project, closing);
    return row;
  });
}

/** Closes the open issues of the project that the merge request's description names (Issues::CloseService through the issues module). */
async function closeIssues(ctx: ServiceContext, project: LoadedProject, iids: number[]): Promise<void> {
  const powers = { admin: false, owner: false, labelScope: projectLabelScope(project.row, project.namespace), createLabels: false, assignable: async () => [], milestone: async () => null };
  for (const iid of iids) {
    const issue = await findIssueByIid(ctx.db, project.row.id, iid);
    if (issue && issue.state === 'opened') await updateIssue(ctx, issue, { stateEvent: 'close' }, powers);
  }
}
