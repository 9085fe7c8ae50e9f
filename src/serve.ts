// `quarry serve`. With one worker (the default) the starting process serves. With QUARRY_WORKERS
// above one it becomes a supervisor: it migrates the database and ensures root once, then keeps
// that many server processes listening on the one port (Node's cluster module hands connections
// to them in turn). They are nodes of one deployment sharing the database, as the scale-out design
// has it: each runs the periodic-task scheduler, whose claims make every due task run once, and a
// background job worker, whose claims give every job to one of them.
//
// Ephemeral mode (QUARRY_EPHEMERAL, `quarry serve --ephemeral`), for test suites: the database in
// memory, the data directory a fresh temporary one removed when the process exits (SIGTERM and
// SIGINT included, and a failed start), the /-/test routes, and one JSON line on stdout once the
// server answers: {"msg":"ready","url":…,"token":…}.
import cluster, { type Worker } from 'node:cluster';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { type RootSetup, createDeps, openConfiguredDatabase, prepare } from './bootstrap.ts';
import { type Config, loadConfig } from './config.ts';
import type { Database } from './db/database.ts';
import type { SshServer } from './ssh/server.ts';
import type { SeedDocument } from './testing/seed-document.ts';
import type { StartState } from './testing/start-state.ts';

/** A worker that dies after it was serving is replaced after this pause. */
const RESTART_DELAY_MS = 1000;

export async function serve(config: Config, seed: SeedDocument | null = null): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return supervise(config);
  return serveHere(config, seed);
}

type Env = Record<string, string | undefined>;

/**
 * `quarry serve`: the configuration from the environment, then the server. Ephemeral mode gets its
 * temporary data directory here; PORT=0 (one process) a free port chosen before the application
 * is built, so that every URL it writes names the port it listens on.
 */
export async function serveFromEnvironment(env: Env): Promise<void> {
  let config = loadConfig(env);
  // A bad seed document stops the start before anything is made.
  const seed = config.seedFile ? (await import('./testing/seed-document.ts')).readSeedFile(config.seedFile) : null;
  const effective: Env = { ...env };
  if (config.ephemeral) effective.QUARRY_DATA_DIR = temporaryDataDirectory();
  if (config.port === 0 && config.workers === 1) effective.PORT = String(await freePort(config.host));
  // The SSH port is known before the application is built too: ssh_url_to_repo names it.
  if (config.ssh?.port === 'auto') effective.QUARRY_SSH_PORT = String(await freePort(config.host));
  config = loadConfig(effective);
  return serve(config, seed);
}

/** A fresh directory, removed when the process exits, however it exits short of SIGKILL. */
function temporaryDataDirectory(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ephemeral-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 }));
  return dir;
}

async function freePort(host: string): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
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
async function serveHere(config: Config, seed: SeedDocument | null): Promise<void> {
  let stopping = false;
  let app: FastifyInstance | null = null;
  let database: Database | null = null;
  let stopScheduler: () => Promise<void> = async () => {};
  let stopWorker: () => Promise<void> = async () => {};
  let stopRunner: () => Promise<void> = async () => {};
  let ssh: SshServer | null = null;
  let stopPagesHttps: () => Promise<void> = async () => {};
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    // Still starting: nothing is served yet, nothing to finish.
    if (!app) process.exit(0);
    app.log.info({ signal: reason }, 'stopping: finishing requests, periodic tasks and background jobs in flight');
    // Past the deadline, connections still open are closed; jobs cut short run again elsewhere.
    setTimeout(() => {
      app?.log.warn({ afterMs: config.shutdownTimeoutMs }, 'stopping: deadline passed, closing the connections still open');
      app?.server.closeAllConnections();
      ssh?.closeAll();
      setTimeout(() => process.exit(1), 1000).unref();
    }, config.shutdownTimeoutMs).unref();
    try {
      // The runner first: its jobs report their outcome to this server before it stops serving.
      await stopRunner();
      await Promise.all([app.close(), ssh?.close(), stopPagesHttps(), stopScheduler(), stopWorker()]);
      await database?.close();
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'error while stopping');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  // Loaded here, not at the top, so that a supervisor never holds the API's modules in memory;
  // their files are read while the database is prepared.
  const loading = Promise.all([import('./app.ts'), import('./jobs/scheduler.ts'), import('./jobs/tasks.ts'), import('./jobs/worker.ts'), import('./jobs/kinds.ts')]);
  loading.catch(() => {});
  database = openConfiguredDatabase(config);
  const deps = createDeps(config, database);
  // A supervisor has prepared the database before starting its workers.
  const setup = cluster.isPrimary ? await prepare(deps) : null;
  const [{ buildApp }, { startScheduler }, { periodicTasks }, { startWorker }, { backgroundJobKinds }] = await loading;
  let startState: StartState | null = null;
  const built = await buildApp(deps, { logger: { level: config.logLevel }, ...(config.ephemeral ? { testMode: { startState: () => startState } } : {}) });
  if (setup) logSetup(built.log, setup);
  if (config.ignoredDatabaseUrl) built.log.warn('DATABASE_URL is ignored in ephemeral mode: the database is in memory');
  let seeded: { created: string[]; tokens: Record<string, string> } | null = null;
  if (seed) {
    const { applySeed } = await import('./testing/seed.ts');
    seeded = await applySeed(built, seed);
    built.log.info({ created: seeded.created.length }, 'applied the seed');
  }
  // What POST /-/test/reset returns to: the first start, and the start seed.
  if (config.ephemeral) startState = await (await import('./testing/start-state.ts')).captureStartState(deps);
  app = built;
  if (stopping) return;

  // Before the HTTP port: a worker whose SSH port is taken fails before it counts as serving.
  if (config.ssh) ssh = await sshServer(config, deps, app.log, cluster.isPrimary);
  await app.listen({ port: config.port, host: config.host });
  if (config.pagesEnabled && config.pagesHttpsPort !== null) {
    const { startPagesHttps } = await import('./modules/pages/index.ts');
    const pagesHttps = await startPagesHttps(deps, app.log);
    app.log.info({ port: pagesHttps.port }, 'serving pages sites over TLS');
    stopPagesHttps = () => pagesHttps.close();
  }
  if (config.ephemeral) {
    const ready = {
      msg: 'ready',
      url: config.externalUrl,
      token: config.rootToken ?? setup?.token ?? null,
      tokens: seeded?.tokens ?? {},
      data_dir: config.dataDir,
      pid: process.pid,
      ...(ssh ? { ssh_port: ssh.port } : {}),
    };
    process.stdout.write(`${JSON.stringify(ready)}\n`);
  }
  if (!stopping) stopScheduler = startScheduler(deps, { tasks: periodicTasks, log: app.log });
  if (!stopping) {
    const worker = await startWorker(deps, { kinds: backgroundJobKinds, log: app.log });
    stopWorker = () => worker.stop();
  }
  // A supervisor starts the one runner of all its workers.
  if (!stopping && cluster.isPrimary && config.builtinRunner) stopRunner = await builtinRunner(config, deps, app.log);
}

/**
 * Starts the SSH server for git, with the host key under the data directory (made at the first
 * start). `announce`: this process logs the key's fingerprint (a supervisor's workers leave it to
 * the supervisor).
 */
async function sshServer(config: Config, deps: ReturnType<typeof createDeps>, log: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>, announce: boolean): Promise<SshServer> {
  const [{ startSshServer }, hostKey] = await Promise.all([import('./ssh/server.ts'), sshHostKey(config, announce ? log : null)]);
  const ssh = config.ssh as NonNullable<Config['ssh']>;
  const server = await startSshServer({ ctx: deps, hostKey, host: config.host, port: Number(ssh.port), maxConnections: ssh.maxConnections, loginGraceMs: ssh.loginGraceMs, log });
  if (announce) log.info({ port: server.port, fingerprint: hostKey.fingerprint }, 'SSH server listening');
  return server;
}

/** The SSH host key, made if there is none yet; `log` hears where a new one was written. */
async function sshHostKey(config: Config, log: Pick<Logger, 'info'> | null) {
  const { ensureHostKey } = await import('./ssh/host-key.ts');
  const hostKey = ensureHostKey(config.dataDir);
  if (hostKey.created) log?.info({ file: hostKey.file, fingerprint: hostKey.fingerprint }, 'created the SSH host key');
  return hostKey;
}

/** Starts the built-in runner with the instance's registration token; how to stop it. */
async function builtinRunner(config: Config, deps: ReturnType<typeof createDeps>, log: Pick<Logger, 'info' | 'error'>): Promise<() => Promise<void>> {
  const [{ startBuiltinRunner }, { instanceRegistrationToken }, { systemContext }] = await Promise.all([
    import('./runner/builtin.ts'),
    import('./modules/runners/runners.service.ts'),
    import('./core/context.ts'),
  ]);
  const runner = startBuiltinRunner(config, await instanceRegistrationToken(systemContext(deps)), log);
  return () => runner.stop();
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
  let stopRunner: (() => Promise<void>) | null = null;
  try {
    const deps = createDeps(config, database);
    logSetup(log, await prepare(deps));
    if (config.builtinRunner) stopRunner = await builtinRunner(config, deps, log);
    // One key for all the workers, made before any of them starts.
    if (config.ssh) log.info({ port: config.ssh.port, fingerprint: (await sshHostKey(config, log)).fingerprint }, 'the server processes serve SSH on this port');
  } finally {
    await database.close();
  }

  const alive = new Set<Worker>();
  const listening = new WeakSet<Worker>();
  let stopping = false;
  let exitCode = 0;
  // The workers listen on the port chosen here, whatever QUARRY_SSH_PORT=auto would choose in each.
  const workerEnv = config.ssh ? { QUARRY_SSH_PORT: String(config.ssh.port) } : {};
  const start = () => {
    const worker = cluster.fork(workerEnv);
    alive.add(worker);
    worker.once('listening', () => listening.add(worker));
  };
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal: reason, workers: alive.size }, 'stopping the server processes');
    // The runner first, while the workers still take its reports.
    void (stopRunner ?? (async () => {}))().finally(() => {
      for (const worker of alive) worker.process.kill('SIGTERM');
    });
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
