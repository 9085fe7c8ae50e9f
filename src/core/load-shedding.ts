// Under overload a new request is answered 503 with Retry-After at once instead of waiting behind
// the others: accepted requests keep their latency, clients learn to come back, and the process
// keeps answering at all. Two signs of overload: more requests in progress than the bound, or an
// event loop running late (every request then waits in line before its first hook). The health
// probes are never refused, so that an orchestrator sees a busy server as alive and ready.
import type { FastifyInstance } from 'fastify';

const PROBES = new Set(['/-/health', '/-/liveness', '/-/readiness']);
/** How often the loop's lateness is sampled. */
const SAMPLE_MS = 50;

const isProbe = (url: string) => {
  const query = url.indexOf('?');
  return PROBES.has(query === -1 ? url : url.slice(0, query));
};

export interface LoadBounds {
  maxInFlight: number;
  /** Lateness of the event loop past which new requests are refused until it catches up; 0: never. */
  lateMs: number;
}

export function installLoadShedding(app: FastifyInstance, bounds: LoadBounds): void {
  let inFlight = 0;
  let late = false;
  if (bounds.lateMs > 0) {
    let expected = performance.now() + SAMPLE_MS;
    const sampler = setInterval(() => {
      const now = performance.now();
      late = now - expected > bounds.lateMs;
      expected = now + SAMPLE_MS;
    }, SAMPLE_MS).unref();
    app.addHook('onClose', async () => clearInterval(sampler));
  }

  const finished = () => {
    inFlight -= 1;
  };
  // A callback hook rather than an async one: no promise for every request.
  app.addHook('onRequest', (req, reply, done) => {
    if (isProbe(req.url)) return done();
    if (late || inFlight >= bounds.maxInFlight) {
      reply.code(503).header('retry-after', '1').send({ message: '503 Service Unavailable' });
      return;
    }
    inFlight += 1;
    // 'close' comes once the answer is written or the connection is gone, whichever happens.
    reply.raw.once('close', finished);
    done();
  });
}
