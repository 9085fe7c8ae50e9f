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
// A request looked at in a turn that has itself run late for the sustained while is refused, and the
// loop counts as overloaded from then on: waiting for a second late sample would keep the probes
// waiting beyond a second.
//
// Why the turns must stay short: a probe on a new connection needs two turns of the loop after the
// one under way, since the loop accepts one connection per turn (libuv since 1.45 calls accept()
// once for each time the listening socket is reported ready) and reads what the new connection sent
// only in the turn after. Under load a turn handles every connection with a request waiting, 200
// with 200 busy clients; so the probe waits about three turns, more when other new connections
// are queued before it. Hence two bounds on the time a turn spends on requests, counted from the
// first request it looks at: a turn whose requests have run past the threshold while many more are
// read in it (a burst: connections' requests read at once, as when 200 clients start together on a
// server whose code has not warmed up yet) refuses the rest and makes the loop overloaded at once,
// without waiting for the loop to run late for the sustained while; and while the loop is
// overloaded, a turn refuses the rest once its requests have run half the threshold. A lone stall
// is one request, not a burst, and makes no turn refuse anything by itself.
//
// New connections queued in the kernel are the worse wait: one accepted per turn, a probe waits for
// all those queued before it, each a turn (200 clients connecting while the turns are long: seconds).
// So while the loop is overloaded, a turn that follows two which each accepted a connection (others
// are most likely queued) refuses every request but the probes; and a connection refused for load
// is not read again until the loop has room (a sample on time) or its Retry-After has passed: a
// client asking again at once (a load generator does) would otherwise be read and refused in every
// turn, and those refusals alone make the turns long. The turns then take a fraction of a
// millisecond until the queue of connections is empty. A lone new connection is served as before.
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
/** How many requests a turn must have looked at for its lateness to count as a burst. */
const BURST_REQUESTS = 8;
/** Retry-After of the refusals, and the longest a connection refused for load is not read. */
const RETRY_AFTER_S = 1;
/** A sample at most this late shows a loop with room: the connections held off are read again. */
const ROOM_MS = 10;

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
  /** Told of each connection accepted. */
  accepted(): void;
  /** Reads nothing more from a connection refused for load until the loop has room or its Retry-After has passed. */
  holdOff(socket: Socket): void;
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
  // The turn under way (the loop's iteration): when it looked at its first request, and how many it
  // has looked at.
  let turn = -1;
  let turnStart = 0;
  let turnRequests = 0;
  // The last three turns that accepted a connection, the latest first (one per turn at most).
  let accepted1 = -1;
  let accepted2 = -1;
  let accepted3 = -1;
  /** Whether the two turns before this one each accepted a connection: others are most likely queued. */
  const draining = (current: number) => {
    const [before, beforeThat] = accepted1 === current ? [accepted2, accepted3] : [accepted1, accepted2];
    return before === current - 1 && beforeThat === current - 2;
  };
  /** While overloaded, the longest a turn spends on requests before it refuses the rest. */
  const turnMs = lateMs / 2;
  const heldOff = new Map<Socket, ReadableHandle>();
  const readAgain = (socket: Socket) => {
    const handle = heldOff.get(socket);
    if (!handle) return;
    heldOff.delete(socket);
    if (!socket.destroyed && handleOf(socket) === handle) handle.readStart();
  };
  const sampler = setInterval(() => {
    const now = performance.now();
    if (heldOff.size > 0 && now - due <= ROOM_MS) for (const socket of [...heldOff.keys()]) readAgain(socket);
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
      const current = loopTurn();
      if (current !== turn) {
        turn = current;
        turnStart = now;
        turnRequests = 0;
      }
      turnRequests += 1;
      const spent = now - turnStart;
      const overdue = now - due;
      const overloaded = now < overloadedUntil;
      if (overdue > sustainMs || (!overloaded && spent > lateMs && turnRequests > BURST_REQUESTS)) {
        // Requests waiting behind a turn that is itself sustained lateness, or a burst: overload, not a lone stall.
        overloadedUntil = now + COOL_DOWN_MS;
        return true;
      }
      return overloaded && (lastLate || overdue > lateMs || spent > turnMs || draining(current));
    },
    accepted() {
      const current = loopTurn();
      if (current === accepted1) return;
      accepted3 = accepted2;
      accepted2 = accepted1;
      accepted1 = current;
    },
    holdOff(socket) {
      const handle = handleOf(socket);
      if (socket.destroyed || !handle || heldOff.has(socket)) return;
      handle.readStop();
      heldOff.set(socket, handle);
      setTimeout(() => readAgain(socket), RETRY_AFTER_S * 1000).unref();
    },
    stop() {
      clearInterval(sampler);
      for (const socket of [...heldOff.keys()]) readAgain(socket);
    },
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
    app.server.on('connection', () => lag?.accepted());
    app.addHook('onClose', async () => lag?.stop());
  }

  // A callback hook rather than an async one: no promise for every request.
  app.addHook('onRequest', (req, reply, done) => {
    if (isProbe(req.url)) return done();
    if (inFlight >= bounds.maxInFlight || (lag?.shedding() && overConnection(req))) {
      reply.code(503).header('retry-after', String(RETRY_AFTER_S)).send({ message: '503 Service Unavailable' });
      if (req.raw.socket instanceof Socket) lag?.holdOff(req.raw.socket);
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

interface ReadableHandle {
  readStop(): number;
  readStart(): number;
}

/** The event loop's iteration under way (libuv counts them). */
const loopTurn = () => performance.nodeTiming.uvMetricsInfo.loopCount;

/**
 * The handle that reads a connection. Node has no public way to stop reading a connection whose
 * requests the HTTP parser consumes (pause() leaves it reading), so a connection is held off by
 * its handle; one without a handle of that shape is not held off.
 */
function handleOf(socket: Socket): ReadableHandle | null {
  const handle = (socket as unknown as { _handle?: Partial<ReadableHandle> | null })._handle;
  return typeof handle?.readStop === 'function' && typeof handle.readStart === 'function' ? (handle as ReadableHandle) : null;
}

const releasers = new WeakMap<FastifyRequest, () => void>();

/**
 * Stops counting a request among those in progress while it only waits (a runner's job request
 * held for long polling): a hundred idle runners must not fill the bound and push others out.
 */
export function stopCounting(req: FastifyRequest): void {
  releasers.get(req)?.();
}
