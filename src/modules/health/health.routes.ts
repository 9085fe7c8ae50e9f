// Health probes for load balancers and orchestrators: /-/health, /-/liveness, /-/readiness.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Entity, Literals } from '../../core/schema.ts';
import { isReachable } from '../../db/database.ts';

const CheckEntity = Entity({ status: Literals(['ok', 'failed']) });
const ReadinessEntity = Entity({ status: Literals(['ok', 'failed']), db_check: Type.Array(CheckEntity) });

export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = { auth: 'none' } as const;

  app.get('/-/health', { config: { ...config, json: false } }, async (_req, reply) => reply.type('text/plain').send('Quarry OK'));

  app.get('/-/liveness', { schema: { response: { 200: Entity({ status: Type.Literal('ok') }) } }, config }, async () => ({ status: 'ok' as const }));

  app.get('/-/readiness', { schema: { response: { 200: ReadinessEntity, 503: ReadinessEntity } }, config }, async (_req, reply) => {
    const ok = await isReachable(app.deps.db);
    const status = ok ? 'ok' : 'failed';
    return reply.code(ok ? 200 : 503).send({ status, db_check: [{ status }] });
  });
};
