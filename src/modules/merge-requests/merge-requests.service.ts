// Writing merge requests (14.x MergeRequests::CreateService / UpdateService / CloseService /
// ReopenService): one transaction each, with the activity event, the system notes of what changed,
// the to-dos of whom it assigns, asks to review or mentions (closing marks the closer's done),
// and the merge status check and the refresh (the merge request's ref and pipeline) enqueued in the
// same transaction. Assignees, reviewers, milestone and
// labels are for those who may administer merge requests (Developers and up), as the platform's
// filter_params drops them for others.
import type { Kysely } from 'kysely';
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import { invalidFields, messageList } from '../../core/errors.ts';
import type { DB, MergeRequestRow } from '../../db/schema.ts';
import { nextInternalId } from '../../domain/internal-ids.ts';
import { labelsOf, mentionList, nextLabels, setLabelLinks, textErrors } from '../../domain/issuables.ts';
import { recordMilestoneEvent, recordStateEvent } from '../../domain/resource-events.ts';
import type { LabelScope } from '../../domain/labels.ts';
import { MERGE_REQUEST_REFRESH } from '../../jobs/merge-request-work.ts';
import { MERGE_STATUS_CHECK } from '../../jobs/merge-status-check.ts';
import { enqueue } from '../../jobs/queue.ts';
import { enqueueHookEvent, hookChanges } from '../../jobs/web-hooks.ts';
import { recordEvent } from '../events/events.service.ts';
import { type Noteable, addSystemNote } from '../notes/notes.service.ts';
import { type TodoTarget, assignmentTodos, deleteTargetTodos, mentionTodos, resolveTodos } from '../todos/todos.service.ts';
import { cacheClosingIssues, closingText } from './closing-issues.ts';
import { findOpenDuplicate } from './merge-requests.finder.ts';
import { isDraftTitle } from './merge-requests.presenter.ts';
import { branchHead, diffRefs } from './merge-state.ts';

export interface MergeRequestChanges {
  title?: string;
  description?: string | null;
  targetBranch?: string;
  assigneeIds?: number[];
  reviewerIds?: number[];
  milestoneId?: number | null;
  labels?: string[];
  addLabels?: string[];
  removeLabels?: string[];
  removeSourceBranch?: boolean;
  squash?: boolean;
  discussionLocked?: boolean;
  stateEvent?: 'close' | 'reopen';
}

export interface MergeRequestPowers {
  /** admin_merge_request: Developers and up. */
  admin: boolean;
  labelScope: LabelScope;
  createLabels: boolean;
  /** Users who may be assigned or asked to review (those who may read the project); the others are dropped. */
  assignable: (db: Kysely<DB>, ids: number[]) => Promise<number[]>;
  milestone: (db: Kysely<DB>, id: number) => Promise<{ id: number; iid: number } | null>;
  /** The project's repository; null when it has none. */
  gitDir: string | null;
}

export const noteableOf = (mr: Pick<MergeRequestRow, 'id' | 'iid' | 'project_id' | 'title'>): Noteable => ({ type: 'MergeRequest', id: mr.id, iid: mr.iid, projectId: mr.project_id, title: mr.title });
export const todoTargetOf = (mr: Pick<MergeRequestRow, 'id' | 'project_id'>): TodoTarget => ({ type: 'MergeRequest', id: mr.id, projectId: mr.project_id });

function validate(changes: MergeRequestChanges, creating: boolean): void {
  const errors = textErrors(changes, creating);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

function permitted(changes: MergeRequestChanges, powers: MergeRequestPowers): MergeRequestChanges {
  if (powers.admin) return changes;
  const { assigneeIds, reviewerIds, milestoneId, labels, addLabels, removeLabels, discussionLocked, ...rest } = changes;
  return rest;
}

/**
 * The platform's refusals of a pair of branches, in its order: the same branch twice (422), a
 * branch that does not exist (422, MergeRequests::BuildService's words), another open merge
 * request between them (409). Lists of messages, as the model's errors are.
 */
async function checkBranches(ctx: ServiceContext, projectId: number, source: string, target: string, gitDir: string | null, exceptId: number | null): Promise<{ source: string; target: string }> {
  if (source === target) throw messageList(["You can't use same project/branch for source and target"], 422);
  const [sourceHead, targetHead] = gitDir === null ? [null, null] : await Promise.all([branchHead(gitDir, source), branchHead(gitDir, target)]);
  const missing = [];
  if (sourceHead === null) missing.push(`Source branch "${source}" does not exist`);
  if (targetHead === null) missing.push(`Target branch "${target}" does not exist`);
  if (missing.length > 0) throw messageList(missing, 422);
  const duplicate = await findOpenDuplicate(ctx.db, projectId, source, target, exceptId);
  if (duplicate) throw messageList([`Another open merge request already exists for this source branch: !${duplicate.iid}`], 409);
  return { source: sourceHead as string, target: targetHead as string };
}

type PeopleTable = 'merge_request_assignees' | 'merge_request_reviewers';

/** The to-do of a new assignee or reviewer. */
const TODO_FOR = { merge_request_assignees: 'assigned', merge_request_reviewers: 'review_requested' } as const;

/** Sets assignees or reviewers, with the to-dos of those added; the system note's text, or null when nothing changed. */
async function setPeople(ctx: ServiceContext, table: PeopleTable, mr: MergeRequestRow, next: number[]): Promise<string | null> {
  const current = (await ctx.db.selectFrom(table).select('user_id').where('merge_request_id', '=', mr.id).execute()).map((r) => Number(r.user_id));
  const added = next.filter((id) => !current.includes(id));
  const removed = current.filter((id) => !next.includes(id));
  if (added.length === 0 && removed.length === 0) return null;
  if (removed.length > 0) await ctx.db.deleteFrom(table).where('merge_request_id', '=', mr.id).where('user_id', 'in', removed).execute();
  if (added.length > 0) await ctx.db.insertInto(table).values(added.map((user_id) => ({ merge_request_id: mr.id, user_id }))).execute();
  await assignmentTodos(ctx, todoTargetOf(mr), added, TODO_FOR[table]);
  const [on, off] = table === 'merge_request_assignees' ? ['assigned to', 'unassigned'] : ['requested review from', 'removed review request for'];
  const parts = [];
  if (added.length > 0) parts.push(`${on} ${await mentionList(ctx.db, added)}`);
  if (removed.length > 0) parts.push(`${off} ${await mentionList(ctx.db, removed)}`);
  return parts.join(' and ');
}

/** Asks for the refresh of a merge request (its ref, its pipeline) in the caller's transaction, as `userId`. */
async function refreshLater(db: Kysely<DB>, mr: Pick<MergeRequestRow, 'id'>, userId: number): Promise<void> {
  await enqueue(db, MERGE_REQUEST_REFRESH, { mergeRequestId: mr.id, userId });
}

/** Asks for a merge status check of these merge requests, in the caller's transaction (one waiting check per merge request is enough). */
export async function recheckLater(db: Kysely<DB>, mr: Pick<MergeRequestRow, 'id' | 'project_id'>): Promise<void> {
  await enqueue(db, MERGE_STATUS_CHECK, { projectId: mr.project_id, mergeRequestIds: [mr.id] }, { dedupeKey: `mr:${mr.id}` });
}

/** POST /projects/:id/merge_requests. */
export async function createMergeRequest(
  ctx: ServiceContext,
  projectId: number,
  input: MergeRequestChanges & { title: string; sourceBranch: string; targetBranch: string },
  powers: MergeRequestPowers,
): Promise<MergeRequestRow> {
  const author = requireActor(ctx).user;
  const changes = permitted(input, powers);
  const heads = await checkBranches(ctx, projectId, input.sourceBranch, input.targetBranch, powers.gitDir, null);
  validate(changes, true);
  const refs = await diffRefs(powers.gitDir as string, heads.source, heads.target);
  const closing = await closingText(powers.gitDir, { title: input.title.trim(), description: changes.description ?? null, ...refs });
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const iid = await nextInternalId(tx, projectId, 'merge_requests');
    const milestone = changes.milestoneId ? await powers.milestone(tx.db, changes.milestoneId) : null;
    const title = input.title.trim();
    const mr = await tx.db
      .insertInto('merge_requests')
      .values({
        project_id: projectId,
        iid,
        author_id: author.id,
        title,
        description: changes.description ?? null,
        source_branch: input.sourceBranch,
        target_branch: input.targetBranch,
        milestone_id: milestone?.id ?? null,
        draft: isDraftTitle(title),
        squash: changes.squash ?? false,
        force_remove_source_branch: changes.removeSourceBranch ?? null,
        sha: heads.source,
        ...refs,
        created_at: at,
        updated_at: at,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const labels = await nextLabels(tx, [], changes, powers.labelScope, powers.createLabels);
    if (labels && labels.length > 0) await setLabelLinks(tx, 'MergeRequest', mr.id, [], labels);
    await recordMilestoneEvent(tx, { type: 'MergeRequest', id: mr.id }, author.id, { from: null, to: mr.milestone_id, state: mr.state }, at);
    for (const [table, ids] of [['merge_request_assignees', changes.assigneeIds], ['merge_request_reviewers', changes.reviewerIds]] as const) {
      const users = ids ? await powers.assignable(tx.db, ids) : [];
      if (users.length > 0) await tx.db.insertInto(table).values(users.map((user_id) => ({ merge_request_id: mr.id, user_id }))).execute();
      await assignmentTodos(tx, todoTargetOf(mr), users, TODO_FOR[table]);
    }
    await recordEvent(tx, { projectId, authorId: author.id, action: 'created', targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: mr.title });
    await mentionTodos(tx, todoTargetOf(mr), { title: mr.title, markdown: mr.description });
    await recheckLater(tx.db, mr);
    await refreshLater(tx.db, mr, author.id);
    await cacheClosingIssues(tx, mr, closing);
    await enqueueHookEvent(tx.db, { projectId }, { kind: 'merge_request', mergeRequestId: mr.id, userId: author.id, action: 'open' });
    return mr;
  });
}

/** PUT /projects/:id/merge_requests/:merge_request_iid. */
export async function updateMergeRequest(ctx: ServiceContext, mr: MergeRequestRow, input: MergeRequestChanges, powers: MergeRequestPowers): Promise<MergeRequestRow> {
  const actor = requireActor(ctx).user;
  const changes = permitted(input, powers);
  const open = mr.state === 'opened';
  const retarget = changes.targetBranch !== undefined && changes.targetBranch !== mr.target_branch && open;
  const reopening = changes.stateEvent === 'reopen' && mr.state === 'closed';
  let heads: { source: string; target: string } | null = null;
  if (retarget || reopening) heads = await checkBranches(ctx, mr.project_id, mr.source_branch, changes.targetBranch ?? mr.target_branch, powers.gitDir, mr.id);
  validate(changes, false);
  const refs = heads ? await diffRefs(powers.gitDir as string, heads.source, heads.target) : null;
  const closing = await closingText(powers.gitDir, {
    title: changes.title?.trim() ?? mr.title,
    description: changes.description !== undefined ? changes.description : mr.description,
    ...(refs ?? { base_sha: mr.base_sha, head_sha: mr.head_sha }),
  });
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const set: Partial<MergeRequestRow> = {};
    const notes: string[] = [];
    if (changes.title !== undefined && changes.title.trim() !== mr.title) {
      set.title = changes.title.trim();
      set.draft = isDraftTitle(set.title);
      if (set.draft !== Boolean(mr.draft)) notes.push(set.draft ? 'marked this merge request as **draft**' : 'marked this merge request as **ready**');
      notes.push(`changed title from **${mr.title}** to **${set.title}**`);
    }
    if (changes.description !== undefined && (changes.description ?? null) !== mr.description) {
      set.description = changes.description ?? null;
      notes.push('changed the description');
    }
    if (set.title !== undefined || set.description !== undefined) Object.assign(set, { last_edited_at: at, last_edited_by_id: actor.id });
    if (retarget) {
      set.target_branch = changes.targetBranch;
      notes.push(`changed target branch from \`${mr.target_branch}\` to \`${changes.targetBranch}\``);
    }
    if (refs && heads) Object.assign(set, { sha: heads.source, ...refs, merge_status: 'unchecked' });
    if (changes.removeSourceBranch !== undefined) set.force_remove_source_branch = changes.removeSourceBranch;
    if (changes.squash !== undefined) set.squash = changes.squash;
    if (changes.discussionLocked !== undefined && changes.discussionLocked !== Boolean(mr.discussion_locked)) {
      set.discussion_locked = changes.discussionLocked;
      notes.push(changes.discussionLocked ? 'locked this merge request' : 'unlocked this merge request');
    }
    if (changes.milestoneId !== undefined) {
      const milestone = changes.milestoneId ? await powers.milestone(tx.db, changes.milestoneId) : null;
      if ((milestone?.id ?? null) !== mr.milestone_id) {
        set.milestone_id = milestone?.id ?? null;
        notes.push(milestone ? `changed milestone to %${milestone.iid}` : 'removed milestone');
      }
    }
    const event = async (action: 'closed' | 'reopened') => {
      await recordStateEvent(tx, { type: 'MergeRequest', id: mr.id }, actor.id, action, at);
      await recordEvent(tx, { projectId: mr.project_id, authorId: actor.id, action, targetType: 'MergeRequest', targetId: mr.id, targetIid: mr.iid, targetTitle: set.title ?? mr.title });
    };
    if (changes.stateEvent === 'close' && open) {
      // A closed merge request merges no more, automatically or not.
      Object.assign(set, { state: 'closed', closed_at: at, closed_by_id: actor.id, merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: null });
      notes.push('closed');
      await event('closed');
      await resolveTodos(tx, todoTargetOf(mr), actor.id);
    } else if (reopening) {
      Object.assign(set, { state: 'opened', closed_at: null, closed_by_id: null });
      notes.push('reopened');
      await event('reopened');
    }
    if (set.milestone_id !== undefined) {
      await recordMilestoneEvent(tx, { type: 'MergeRequest', id: mr.id }, actor.id, { from: mr.milestone_id, to: set.milestone_id, state: set.state ?? mr.state }, at);
    }
    const current = (await labelsOf(tx.db, 'MergeRequest', [mr.id])).get(mr.id) ?? [];
    const labels = await nextLabels(tx, current, changes, powers.labelScope, powers.createLabels);
    if (labels) notes.push(...[await setLabelLinks(tx, 'MergeRequest', mr.id, current, labels)].filter((n): n is string => n !== null));
    if (changes.assigneeIds !== undefined) notes.push(...[await setPeople(tx, 'merge_request_assignees', mr, await powers.assignable(tx.db, changes.assigneeIds))].filter((n): n is string => n !== null));
    if (changes.reviewerIds !== undefined) notes.push(...[await setPeople(tx, 'merge_request_reviewers', mr, await powers.assignable(tx.db, changes.reviewerIds))].filter((n): n is string => n !== null));
    for (const body of notes) await addSystemNote(tx, noteableOf(mr), body);
    if (set.title !== undefined || set.description !== undefined) {
      const after = { title: set.title ?? mr.title, markdown: set.description !== undefined ? set.description : mr.description };
      await mentionTodos(tx, todoTargetOf(mr), after, { before: { title: mr.title, markdown: mr.description } });
    }
    const updated = await tx.db
      .updateTable('merge_requests')
      .set({ ...set, updated_at: at, updated_by_id: actor.id })
      .where('id', '=', mr.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (refs) await recheckLater(tx.db, updated);
    if (reopening) await refreshLater(tx.db, updated, actor.id);
    await cacheClosingIssues(tx, updated, closing);
    const action = set.state === 'closed' ? 'close' : set.state === 'opened' ? 'reopen' : 'update';
    const oldrev = refs && mr.sha && mr.sha !== updated.sha ? { oldrev: mr.sha } : {};
    const hookChangeSet = hookChanges(mr, { ...set, updated_at: at, updated_by_id: actor.id });
    await enqueueHookEvent(tx.db, { projectId: mr.project_id }, { kind: 'merge_request', mergeRequestId: mr.id, userId: actor.id, action, changes: hookChangeSet, ...oldrev });
    return updated;
  });
}

/** DELETE /projects/:id/merge_requests/:merge_request_iid: its notes, labels, subscriptions and to-dos go with it. */
export async function deleteMergeRequest(ctx: ServiceContext, mr: MergeRequestRow): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await deleteTargetTodos(tx, todoTargetOf(mr));
    await tx.db.deleteFrom('notes').where('noteable_type', '=', 'MergeRequest').where('noteable_id', '=', mr.id).execute();
    await tx.db.deleteFrom('label_links').where('target_type', '=', 'MergeRequest').where('target_id', '=', mr.id).execute();
    await tx.db.deleteFrom('subscriptions').where('subscribable_type', '=', 'MergeRequest').where('subscribable_id', '=', mr.id).execute();
    await tx.db.deleteFrom('merge_requests').where('id', '=', mr.id).execute();
  });
}

