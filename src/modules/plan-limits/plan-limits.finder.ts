// Reads of plan limits. Every project is on the `default` plan (a self-managed instance assigns
// no other), so its limits are that plan's.
import type { Kysely } from 'kysely';
import type { DB, PlanLimitsRow } from '../../db/schema.ts';
import type { PlanLimitField, PlanName } from './plan-limits.schemas.ts';

/**
 * A plan's limits. A plan whose row is gone (an instance reset empties the table) gets it back with
 * the defaults, as the platform builds the limits a plan lacks.
 */
export async function findPlanLimits(db: Kysely<DB>, planName: PlanName): Promise<PlanLimitsRow> {
  const read = () => db.selectFrom('plan_limits').selectAll().where('plan_name', '=', planName).executeTakeFirst();
  const row = await read();
  if (row) return row;
  await db.insertInto('plan_limits').values({ plan_name: planName, updated_at: new Date().toISOString() }).onConflict((oc) => oc.column('plan_name').doNothing()).execute();
  return (await read()) as PlanLimitsRow;
}

/** The plan a project's namespace is on. */
export const projectPlan = (_projectId: number): PlanName => 'default';

/** A project's limit; 0 means none, as the platform's `exceeded?` reads it. */
export async function projectLimit(db: Kysely<DB>, projectId: number, field: PlanLimitField): Promise<number> {
  return Number((await findPlanLimits(db, projectPlan(projectId)))[field]);
}
