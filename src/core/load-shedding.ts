// Under overload a new request is answered 503 with Retry-After at once instead of waiting behind
// the others: accepted requests keep their latency, clients learn to come back, and the process
// keeps answering at all. Two signs of overload: more requests in progress than the bound, or an
// event loop running late (every request then waits in line before its first hook). The health
// probes are never refused, so that an orchestrator sees a busy server as alive and ready.
//
// Lateness alone is no proof of overload: a garbage collection, a large commit or a neighbour
// taking the CPU makes the loop late once, and refusing requests then would only fail clients the
// server could have served. So requests are refused for lateness only while the loop is overloaded:
// once it has run late sample after sample for a sustained while (SUSTAIN_MS), and until it has kept
// up for a while (COOL_DOWN_MS). Then each request is refused while the loop is late at that moment (the last
// sample came late, or the next one is overdue by the threshold), so that one turn of the loop
// serves little more than the threshold's worth of requests before the probes get their turn.
// A request looked at in a turn that has itself run late for the sustained while (200 connections'
// requests read at once) is refused, and the loop counts as overloaded from then on: waiting for a
// second late sample would keep the probes waiting beyond a second.
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const PROBES = new Set(['/-/health', '/-/liveness', '/-/readiness']);
/** How often the loop's lateness is sampled. */
const SAMPLE_MS = 50;
/** How long the loop must run late before it counts as overloaded. */
export const SUSTAIN_MS = 400;
/**
 * How long it must then keep up (no late sample) before it no longer counts as overloaded: longer
 * than the turns of serving between two late samples while it sheds, and harmless once the load
 * has stopped, since nothing is refused while the loop keeps up.
 */
const COOL_DOWN_MS = 2000;

const isProbe = (url: string) => {
  const query = url.indexOf('?');
  return PROBES.has(query === -1 ? url : url.slice(0, query));
};

/**
 * Lateness delays requests that wait on a connection. One handed in by app.inject waits in no
 * queue: it is the process calling itself, whose own synchronous work is what runs the loop late,
 * and refusing it would protect no one.
 */
const overConnection = (req: FastifyRequest) => req.raw.socket instanceof Socket;

export interface LoadBounds {
  maxInFlight: number;
  /** Lateness of the event loop past which new requests are refused while it is overloaded; 0: never. */
  lateMs: number;
  /** SUSTAIN_MS unless given (tests shorten it). */
  sustainMs?: number;
}

export interface LagMonitor {
  /** Whether a request arriving now should be refused for the loop's lateness. */
  shedding(): boolean;
  stop(): void;
}

/** Samples the loop's lateness every SAMPLE_MS and tells whether it is overloaded and late now. */
export function monitorLag(lateMs: number, sustainMs: number = SUSTAIN_MS): LagMonitor {
  let due = performance.now() + SAMPLE_MS;
  let lastLate = false;
  // The run of late samples under way: when its first was due, and how many it has.
  let runStart = 0;
  let runLength = 0;
  let overloadedUntil = -Infinity;
  const sampler = setInterval(() => {
    const now = performance.now();
    lastLate = now - due > lateMs;
    if (!lastLate) {
      runLength = 0;
    } else {
      if (runLength === 0) runStart = due;
      runLength += 1;
      // One long stall is one late sample however long it lasts: a run needs two at least.
      const sustained = runLength >= 2 && now - runStart >= sustainMs;
      if (sustained || now < overloadedUntil) overloadedUntil = now + COOL_DOWN_MS;
    }
    due = now + SAMPLE_MS;
  }, SAMPLE_MS).unref();
  return {
    shedding() {
      const now = performance.now();
      const overdue = now - due;
      if (overdue > sustainMs) {
        // Requests waiting behind a turn that is itself sustained lateness: overload, not a lone stall.
        overloadedUntil = now + COOL_DOWN_MS;
        return true;
      }
      return now < overloadedUntil && (lastLate || overdue > lateMs);
    },
    stop: () => clearInterval(sampler),
  };
}

export function installLoadShedding(app: FastifyInstance, bounds: LoadBounds): void {
  let inFlight = 0;
  let lag: LagMonitor | null = null;
  if (bounds.lateMs > 0) {
    // Measured from the moment the server is ready: starting (loading modules, migrating) runs the
    // loop late with no request waiting.
    app.addHook('onReady', async () => {
      lag = monitorLag(bounds.lateMs, bounds.sustainMs);
    });
    app.addHook('onClose', async () => lag?.stop());
  }

  // A callback hook rather than an async one: no promise for every request.
  app.addHook('onRequest', (req, reply, done) => {
    if (isProbe(req.url)) return done();
    if (inFlight >= bounds.maxInFlight || (lag?.shedding() && overConnection(req))) {
      reply.code(503).header('retry-after', '1').send({ message: '503 Service Unavailable' });
      return;
    }
    inFlight += 1;
    let counted = true;
    const release = () => {
      if (counted) inFlight -= 1;
      counted = false;
    };
    releasers.set(req, release);
    // 'close' comes once the answer is written or the connection is gone, whichever happens.
    reply.raw.once('close', release);
    done();
  });
}

const releasers = new WeakMap<FastifyRequest, () => void>();

/**
 * Stops counting a request among those in progress while it only waits (a runner's job request
 * held for long polling): a hundred idle runners must not fill the bound and push others out.
 */
export function stopCounting(req: FastifyRequest): void {
  releasers.get(req)?.();
}
