// Beyond a bound of requests in progress, a new request is answered 503 with Retry-After at once
// instead of waiting behind the others: under overload, accepted requests keep their latency and
// clients learn to come back, rather than every request timing out. The health probes are never
// refused, so that an orchestrator sees a busy server as alive and ready.
import type { FastifyInstance } from 'fastify';

const PROBES = new Set(['/-/health', '/-/liveness', '/-/readiness']);

const isProbe = (url: string) => PROBES.has(url.split('?')[0]);

export function installLoadShedding(app: FastifyInstance, maxInFlight: number): void {
  let inFlight = 0;
  app.addHook('onRequest', async (req, reply) => {
    if (isProbe(req.url)) return;
    if (inFlight >= maxInFlight) {
      return reply.code(503).header('retry-after', '1').send({ message: '503 Service Unavailable' });
    }
    inFlight += 1;
    // 'close' comes once the answer is written or the connection is gone, whichever happens.
    reply.raw.once('close', () => {
      inFlight -= 1;
    });
  });
}
