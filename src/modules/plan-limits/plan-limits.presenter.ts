// The plan limits row → its entity.
import type { PlanLimitsRow } from '../../db/schema.ts';
import { PLAN_LIMIT_FIELDS, type PlanLimits } from './plan-limits.schemas.ts';

export function presentPlanLimits(row: PlanLimitsRow): PlanLimits {
  return Object.fromEntries(PLAN_LIMIT_FIELDS.map((field) => [field, Number(row[field])])) as PlanLimits;
}
