// Reads of plan limits. Every project is on the `default` plan (a self-managed instance assigns
// no other), so its limits are that plan's.
import type { Kysely } from 'kysely';
import type { DB, PlanLimitsRow } from '../../db/schema.ts';
import type { PlanLimitField } from './plan-limits.schemas.ts';

export function findPlanLimits(db: Kysely<DB>, planName: string): Promise<PlanLimitsRow | undefined> {
  return db.selectFrom('plan_limits').selectAll().where('plan_name', '=', planName).executeTakeFirst();
}

/** The plan a project's namespace is on. */
export const projectPlan = (_projectId: number): string => 'default';

/** A project's limit; 0 (or no plan row) means none, as the platform's `exceeded?` reads it. */
export async function projectLimit(db: Kysely<DB>, projectId: number, field: PlanLimitField): Promise<number> {
  const row = await findPlanLimits(db, projectPlan(projectId));
  return row ? Number(row[field]) : 0;
}
