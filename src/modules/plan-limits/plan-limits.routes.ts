// GET and PUT /application/plan_limits (spec Part 2 §4.9): administrators only. A plan name that
// is not one of the platform's is a parameter error; one without limits recorded is 404.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { findPlanLimits } from './plan-limits.finder.ts';
import { presentPlanLimits } from './plan-limits.presenter.ts';
import { PlanLimitsEntity, ShowPlanLimitsQuery, UpdatePlanLimitsBody } from './plan-limits.schemas.ts';
import { updatePlanLimits } from './plan-limits.service.ts';

const ADMIN = { auth: 'required' } as const;

export const planLimitRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  api.get('/application/plan_limits', { schema: { querystring: ShowPlanLimitsQuery, response: { 200: PlanLimitsEntity } }, config: ADMIN, preHandler: adminOnly }, async (req) => {
    return presentPlanLimits(await findPlanLimits(db, req.query.plan_name ?? 'default'));
  });

  api.put('/application/plan_limits', { schema: { body: UpdatePlanLimitsBody, response: { 200: PlanLimitsEntity } }, config: ADMIN, preHandler: adminOnly }, async (req) =>
    presentPlanLimits(await updatePlanLimits(serviceContext(req), req.body)),
  );
};
