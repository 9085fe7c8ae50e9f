// Merging when the pipeline succeeds (14.x AutoMergeService with its merge_when_pipeline_succeeds
// strategy): a merge asked for while the head pipeline runs is kept on the merge request (who
// asked, and the parameters of the merge), with its system note and the auto-merge check enqueued
// in the same transaction; the check (merge-requests.jobs.ts) merges once the head pipeline has
// succeeded. Canceling it, or a push to the source branch, ends it with a note; a merge refused
// when its time came ends it too, with an `unmergeable` to-do for its participants.
import { type ServiceContext, requireActor, withTransaction } from '../../core/context.ts';
import type { MergeRequestRow } from '../../db/schema.ts';
import { AUTO_MERGE } from '../../jobs/merge-request-work.ts';
import { enqueue } from '../../jobs/queue.ts';
import { addSystemNote } from '../notes/notes.service.ts';
import { participantTodos } from '../todos/todos.service.ts';
import { noteableOf, todoTargetOf } from './merge-requests.service.ts';

/** The merge parameters kept until the merge (the platform's merge_params). */
export interface StoredMergeParams {
  sha: string;
  mergeCommitMessage?: string;
  squashCommitMessage?: string;
  shouldRemoveSourceBranch?: boolean;
  squash?: boolean;
}

export function storedMergeParams(mr: Pick<MergeRequestRow, 'merge_params'>): StoredMergeParams | null {
  return mr.merge_params === null ? null : (JSON.parse(mr.merge_params) as StoredMergeParams);
}

/** Who a merge concerns (MergeRequest#merge_participants): its author, and whoever set it to merge when the pipeline succeeds. */
export function mergeParticipants(mr: Pick<MergeRequestRow, 'author_id' | 'merge_when_pipeline_succeeds' | 'merge_user_id'>): number[] {
  const users = [mr.author_id, mr.merge_when_pipeline_succeeds ? mr.merge_user_id : null].filter((id): id is number => id !== null);
  return [...new Set(users)];
}

/** Queues the auto-merge check of a project's merge requests, in the caller's transaction (one waiting check per project). */
export async function autoMergeLater(ctx: ServiceContext, projectId: number): Promise<void> {
  await enqueue(ctx.db, AUTO_MERGE, { projectId }, { dedupeKey: String(projectId) });
}

/** Sets the merge request to merge when the pipeline for `sha` succeeds; asked again, the parameters are replaced. */
export async function enableAutoMerge(ctx: ServiceContext, mr: MergeRequestRow, sha: string, params: Omit<StoredMergeParams, 'sha'>): Promise<MergeRequestRow> {
  const user = requireActor(ctx).user;
  const stored: StoredMergeParams = { sha, mergeCommitMessage: params.mergeCommitMessage, squashCommitMessage: params.squashCommitMessage, shouldRemoveSourceBranch: params.shouldRemoveSourceBranch, squash: params.squash };
  return withTransaction(ctx, async (tx) => {
    const row = await tx.db
      .updateTable('merge_requests')
      .set({ merge_when_pipeline_succeeds: true, merge_user_id: user.id, merge_params: JSON.stringify(stored), ...(params.squash ? { squash: true } : {}), updated_at: tx.now().toISOString() })
      .where('id', '=', mr.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (!mr.merge_when_pipeline_succeeds) await addSystemNote(tx, noteableOf(mr), `enabled an automatic merge when the pipeline for ${sha} succeeds`);
    // The pipeline may succeed before this commits: the check looks once more.
    await autoMergeLater(tx, mr.project_id);
    return row;
  });
}

/** Ends a merge request's automatic merge, with the system note that says why. */
export async function endAutoMerge(ctx: ServiceContext, mr: MergeRequestRow, note: string): Promise<void> {
  await ctx.db.updateTable('merge_requests').set({ merge_when_pipeline_succeeds: false, merge_user_id: null, merge_params: null }).where('id', '=', mr.id).execute();
  await addSystemNote(ctx, noteableOf(mr), note);
}

/** POST …/cancel_merge_when_pipeline_succeeds: the service's answer, which 14.x sends as the body. */
export async function cancelAutoMerge(ctx: ServiceContext, mr: MergeRequestRow): Promise<{ status: 'success' } | { status: 'error'; message: string; http_status: number }> {
  if (!mr.merge_when_pipeline_succeeds) return { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 };
  await withTransaction(ctx, (tx) => endAutoMerge(tx, mr, 'canceled the automatic merge'));
  return { status: 'success' };
}

/** Stops an automatic merge that can no longer happen as asked, keeping the reason as the merge error. */
export async function abortAutoMerge(ctx: ServiceContext, mr: MergeRequestRow, reason: string): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await participantTodos(tx, todoTargetOf(mr), mergeParticipants(mr), 'unmergeable');
    await endAutoMerge(tx, mr, `aborted the automatic merge because ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`);
    await tx.db.updateTable('merge_requests').set({ merge_error: reason }).where('id', '=', mr.id).execute();
  });
}
