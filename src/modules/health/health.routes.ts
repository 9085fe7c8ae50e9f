// Health probes for load balancers and orchestrators: /-/health, /-/liveness, /-/readiness.
import type { FastifyPluginAsync } from 'fastify';
import { isReachable } from '../../db/database.ts';

export const healthRoutes: FastifyPluginAsync = async (app) => {
  const config = { auth: 'none' as const };

  app.get('/-/health', { config }, async (_req, reply) => reply.type('text/plain').send('Quarry OK'));

  app.get('/-/liveness', { config }, async () => ({ status: 'ok' }));

  app.get('/-/readiness', { config }, async (_req, reply) => {
    const ok = await isReachable(app.deps.db);
    const check = { status: ok ? 'ok' : 'failed' };
    return reply.code(ok ? 200 : 503).send({ status: check.status, db_check: [check] });
  });
};
