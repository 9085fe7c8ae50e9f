// Internal ids (`iid`) per project: a counter row per project and usage, moved forward inside the
// writer's transaction (the row lock orders concurrent writers on PostgreSQL; SQLite has one
// writer). An iid is never handed out twice, not even after the newest record is deleted.
import { sql } from 'kysely';
import type { BaseContext } from '../core/context.ts';

export type InternalIdUsage = 'issues' | 'merge_requests' | 'milestones';

async function ensureCounter(ctx: BaseContext, projectId: number, usage: InternalIdUsage): Promise<void> {
  await ctx.db
    .insertInto('internal_ids')
    .values({ project_id: projectId, namespace_id: null, usage, last_value: 0 })
    .onConflict((oc) => oc.columns(['usage', 'project_id']).doNothing())
    .execute();
}

/** The next iid of this project and usage. */
export async function nextInternalId(ctx: BaseContext, projectId: number, usage: InternalIdUsage): Promise<number> {
  await ensureCounter(ctx, projectId, usage);
  const row = await ctx.db
    .updateTable('internal_ids')
    .set({ last_value: sql`last_value + 1` })
    .where('usage', '=', usage)
    .where('project_id', '=', projectId)
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}

/** An iid chosen by the caller: later ones are handed out above it. */
export async function trackInternalId(ctx: BaseContext, projectId: number, usage: InternalIdUsage, iid: number): Promise<void> {
  await ensureCounter(ctx, projectId, usage);
  await ctx.db
    .updateTable('internal_ids')
    .set({ last_value: sql`case when last_value < ${iid} then ${iid} else last_value end` })
    .where('usage', '=', usage)
    .where('project_id', '=', projectId)
    .execute();
}
