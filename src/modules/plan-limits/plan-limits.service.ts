// Changes of a plan's limits: only the fields given; a negative size is the model's validation error.
import type { ServiceContext } from '../../core/context.ts';
import { type FieldErrors, invalidFields, notFound } from '../../core/errors.ts';
import type { PlanLimitsRow } from '../../db/schema.ts';
import { findPlanLimits } from './plan-limits.finder.ts';
import { PLAN_LIMIT_FIELDS, type UpdatePlanLimitsBody } from './plan-limits.schemas.ts';

export async function updatePlanLimits(ctx: ServiceContext, body: UpdatePlanLimitsBody): Promise<PlanLimitsRow> {
  const changes: Partial<Record<(typeof PLAN_LIMIT_FIELDS)[number], number>> = {};
  const errors: FieldErrors = {};
  for (const field of PLAN_LIMIT_FIELDS) {
    const value = body[field];
    if (value === undefined) continue;
    if (value < 0) errors[field] = ['must be greater than or equal to 0'];
    changes[field] = value;
  }
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  await findPlanLimits(ctx.db, body.plan_name);
  const row = await ctx.db
    .updateTable('plan_limits')
    .set({ ...changes, updated_at: ctx.now().toISOString() })
    .where('plan_name', '=', body.plan_name)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('Plan');
  return row;
}
