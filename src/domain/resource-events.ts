// The one way to record resource events (14.x ResourceEvents::ChangeLabelsService,
// ChangeStateService, ChangeMilestoneService): who changed the labels, the state or the milestone
// of an issue or a merge request, and when. Every writer of those fields records them here, inside
// its own transaction.
import type { ServiceContext } from '../core/context.ts';

export interface EventIssuable {
  type: 'Issue' | 'MergeRequest';
  id: number;
}

/** The row's owner column: issue_id or merge_request_id. */
const owner = (issuable: EventIssuable) => (issuable.type === 'Issue' ? { issue_id: issuable.id, merge_request_id: null } : { issue_id: null, merge_request_id: issuable.id });

/** Labels added, then labels removed, one event each, as the platform writes them. */
export async function recordLabelEvents(ctx: ServiceContext, issuable: EventIssuable, userId: number, added: readonly { id: number }[], removed: readonly { id: number }[], at: string): Promise<void> {
  const rows = [...added.map((l) => ({ label_id: l.id, action: 'add' })), ...removed.map((l) => ({ label_id: l.id, action: 'remove' }))];
  if (rows.length === 0) return;
  await ctx.db
    .insertInto('resource_label_events')
    .values(rows.map((row) => ({ ...owner(issuable), user_id: userId, ...row, created_at: at })))
    .execute();
}

export type ResourceState = 'closed' | 'reopened' | 'merged';

export async function recordStateEvent(ctx: ServiceContext, issuable: EventIssuable, userId: number, state: ResourceState, at: string): Promise<void> {
  await ctx.db.insertInto('resource_state_events').values({ ...owner(issuable), user_id: userId, state, created_at: at }).execute();
}

/**
 * A change of milestone: `add` of the new one, or `remove` of the old one when none is left; with
 * the issuable's state once the change is made.
 */
export async function recordMilestoneEvent(
  ctx: ServiceContext,
  issuable: EventIssuable,
  userId: number,
  change: { from: number | null; to: number | null; state: string },
  at: string,
): Promise<void> {
  if (change.from === change.to) return;
  const [milestoneId, action] = change.to !== null ? [change.to, 'add'] : [change.from, 'remove'];
  await ctx.db.insertInto('resource_milestone_events').values({ ...owner(issuable), user_id: userId, milestone_id: milestoneId, action, state: change.state, created_at: at }).execute();
}
