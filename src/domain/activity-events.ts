// The one way to record an activity event; every module's writes go through it, inside the
// write's own transaction.
import type { ServiceContext } from '../core/context.ts';

/** Actions of the spec (Part 2 §4.6), stored by name. */
export const EVENT_ACTIONS = [
  'created',
  'updated',
  'closed',
  'reopened',
  'pushed',
  'commented',
  'merged',
  'joined',
  'left',
  'destroyed',
  'expired',
  'approved',
] as const;
export type EventAction = (typeof EVENT_ACTIONS)[number];

export interface NewEvent {
  projectId: number | null;
  authorId: number;
  action: EventAction;
  /** Stored class name of the target ('Issue', 'Milestone', 'Project', …); null for project-level events. */
  targetType?: string | null;
  targetId?: number | null;
  targetIid?: number | null;
  targetTitle?: string | null;
  /** Push events carry their push data. */
  pushData?: Record<string, unknown> | null;
}

export async function recordEvent(ctx: ServiceContext, event: NewEvent): Promise<void> {
  const at = ctx.now().toISOString();
  // The project's row before the event's: a transaction that inserted a child row first (whose
  // reference shares the lock of the project's row) and updated the row second would deadlock with
  // deleting the project at the same moment (PostgreSQL), which takes the row then its children.
  if (event.projectId !== null) {
    await ctx.db.updateTable('projects').set({ last_activity_at: at }).where('id', '=', event.projectId).execute();
  }
  await ctx.db
    .insertInto('events')
    .values({
      project_id: event.projectId,
      author_id: event.authorId,
      action: event.action,
      target_type: event.targetType ?? null,
      target_id: event.targetId ?? null,
      target_iid: event.targetIid ?? null,
      target_title: event.targetTitle ?? null,
      push_data: event.pushData ? JSON.stringify(event.pushData) : null,
      created_at: at,
      updated_at: at,
    })
    .execute();
}
