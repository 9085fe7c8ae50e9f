// `quarry serve`. With one worker (the default) the starting process serves. With QUARRY_WORKERS
// above one it becomes a supervisor: it migrates the database and ensures root once, then keeps
// that many server processes listening on the one port (Node's cluster module hands connections
// to them in turn). They are nodes of one deployment sharing the database, as the scale-out design
// has it: each runs the periodic-task scheduler, whose claims make every due task run once, and a
// background job worker, whose claims give every job to one of them.
import cluster, { type Worker } from 'node:cluster';
import pino, { type Logger } from 'pino';
import { type RootSetup, createDeps, openConfiguredDatabase, prepare } from './bootstrap.ts';
import type { Config } from './config.ts';

/** A worker that dies after it was serving is replaced after this pause. */
const RESTART_DELAY_MS = 1000;

export async function serve(config: Config): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return supervise(config);
  return serveHere(config);
}

function logSetup(log: Pick<Logger, 'info'>, setup: RootSetup): void {
  if (setup.created) log.info({ username: 'root' }, 'created the administrator root');
  if (setup.tokenFile) log.info({ file: setup.tokenFile }, 'wrote the administrator token');
  if (setup.passwordFile) log.info({ file: setup.passwordFile }, 'wrote the administrator password');
}

/**
 * Serves from this process until SIGTERM or SIGINT. (A worker whose supervisor is gone is ended by
 * Node's cluster module itself.)
 */
async function serveHere(config: Config): Promise<void> {
  // Loaded here, not at the top, so that a supervisor never holds the API's modules in memory.
  const [{ buildApp }, { startScheduler }, { periodicTasks }, { startWorker }, { backgroundJobKinds }] = await Promise.all([
    import('./app.ts'),
    import('./jobs/scheduler.ts'),
    import('./jobs/tasks.ts'),
    import('./jobs/worker.ts'),
    import('./jobs/kinds.ts'),
  ]);
  const database = openConfiguredDatabase(config);
  const deps = createDeps(config, database);
  // A supervisor has prepared the database before starting its workers.
  const setup = cluster.isPrimary ? await prepare(deps) : null;
  const app = await buildApp(deps, { logger: { level: config.logLevel } });
  if (setup) logSetup(app.log, setup);

  let stopping = false;
  let stopScheduler: () => Promise<void> = async () => {};
  let stopWorker: () => Promise<void> = async () => {};
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal: reason }, 'stopping: finishing requests, periodic tasks and background jobs in flight');
    // Past the deadline, connections still open are closed; jobs cut short run again elsewhere.
    setTimeout(() => {
      app.log.warn({ afterMs: config.shutdownTimeoutMs }, 'stopping: deadline passed, closing the connections still open');
      app.server.closeAllConnections();
      setTimeout(() => process.exit(1), 1000).unref();
    }, config.shutdownTimeoutMs).unref();
    try {
      await Promise.all([app.close(), stopScheduler(), stopWorker()]);
      await database.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'error while stopping');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  if (!stopping) stopScheduler = startScheduler(deps, { tasks: periodicTasks, log: app.log });
  if (!stopping) {
    const worker = await startWorker(deps, { kinds: backgroundJobKinds, log: app.log });
    stopWorker = () => worker.stop();
  }
}

/**
 * Prepares the database, starts the workers and replaces one that dies while serving. A worker
 * that exits before it ever listened (a port in use, a database it cannot open) stops the whole
 * server, since its replacements would fail the same way. SIGTERM or SIGINT stops every worker
 * gracefully; the supervisor exits once they all have, with 0 when they all stopped cleanly.
 */
async function supervise(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  // A scrape of /-/metrics reaches one worker, which asks here for the sum over them all.
  const { superviseMetrics } = await import('./core/metrics-cluster.ts');
  superviseMetrics();
  const database = openConfiguredDatabase(config);
  try {
    logSetup(log, await prepare(createDeps(config, database)));
  } finally {
    await database.close();
  }

  const alive = new Set<Worker>();
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;
  const start = () => {
    const worker = cluster.fork();
    alive.add(worker);
    worker.once('listening', () => listening.add(worker));
  };
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: reason, workers: alive.size }, 'stopping the server processes');
    for (const worker of alive) worker.process.kill('SIGTERM');
  };

  cluster.on('exit', (worker, code, signal) => {
    alive.delete(worker);
    if (stopping) {
      // One still starting when asked to stop may end by the signal itself.
      if (code !== 0 && signal !== 'SIGTERM') exitCode = 1;
    } else if (!listening.has(worker)) {
      log.error({ worker: worker.process.pid, code, signal }, 'a server process failed to start');
      exitCode = 1;
      stopAll('start-up failure');
    } else {
      log.error({ worker: worker.process.pid, code, signal }, 'a server process exited; starting another');
      setTimeout(() => {
        if (!stopping) start();
      }, RESTART_DELAY_MS);
    }
    if (stopping && alive.size === 0) process.exit(exitCode);
  });
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  process.on('SIGINT', () => stopAll('SIGINT'));
  log.info({ workers: config.workers }, 'starting the server processes');
  for (let i = 0; i < config.workers; i++) start();
}
