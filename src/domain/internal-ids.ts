// Internal ids (`iid`) per project, or per group for a group's own records (its milestones): a
// counter row per owner and usage, moved forward inside the writer's transaction (the row lock
// orders concurrent writers on PostgreSQL; SQLite has one writer). An iid is never handed out
// twice, not even after the newest record is deleted.
import { sql } from 'kysely';
import type { BaseContext } from '../core/context.ts';

export type InternalIdUsage = 'issues' | 'merge_requests' | 'milestones' | 'alert_management_alerts';

/** Whose counter: a project's (project_id) or a group's (namespace_id). */
type OwnerColumn = 'project_id' | 'namespace_id';

async function ensureCounter(ctx: BaseContext, column: OwnerColumn, ownerId: number, usage: InternalIdUsage): Promise<void> {
  await ctx.db
    .insertInto('internal_ids')
    .values({ project_id: column === 'project_id' ? ownerId : null, namespace_id: column === 'namespace_id' ? ownerId : null, usage, last_value: 0 })
    .onConflict((oc) => oc.columns(['usage', column]).doNothing())
    .execute();
}

async function advance(ctx: BaseContext, column: OwnerColumn, ownerId: number, usage: InternalIdUsage): Promise<number> {
  await ensureCounter(ctx, column, ownerId, usage);
  const row = await ctx.db
    .updateTable('internal_ids')
    .set({ last_value: sql`last_value + 1` })
    .where('usage', '=', usage)
    .where(column, '=', ownerId)
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}

/** The next iid of this project and usage. */
export function nextInternalId(ctx: BaseContext, projectId: number, usage: InternalIdUsage): Promise<number> {
  return advance(ctx, 'project_id', projectId, usage);
}

/** The next iid of this group and usage. */
export function nextGroupInternalId(ctx: BaseContext, groupId: number, usage: InternalIdUsage): Promise<number> {
  return advance(ctx, 'namespace_id', groupId, usage);
}

async function track(ctx: BaseContext, column: OwnerColumn, ownerId: number, usage: InternalIdUsage, iid: number): Promise<void> {
  await ensureCounter(ctx, column, ownerId, usage);
  await ctx.db
    .updateTable('internal_ids')
    .set({ last_value: sql`case when last_value < ${iid} then ${iid} else last_value end` })
    .where('usage', '=', usage)
    .where(column, '=', ownerId)
    .execute();
}

/** An iid chosen by the caller: later ones are handed out above it. */
export function trackInternalId(ctx: BaseContext, projectId: number, usage: InternalIdUsage, iid: number): Promise<void> {
  return track(ctx, 'project_id', projectId, usage, iid);
}

/** An iid of a group's record chosen by the caller (an imported milestone's). */
export function trackGroupInternalId(ctx: BaseContext, groupId: number, usage: InternalIdUsage, iid: number): Promise<void> {
  return track(ctx, 'namespace_id', groupId, usage, iid);
}
