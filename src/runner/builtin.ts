// The built-in runner `quarry serve` starts (unless QUARRY_BUILTIN_RUNNER=0): `quarry runner` as a
// child process, registered as an instance runner with the instance's registration token, its
// builds, caches and token under `<data dir>/runner`. It reaches the server over HTTP like any
// runner. Started again when it dies; stopped (its jobs given the time to finish) before the
// server stops serving, so that it can still report them.
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Config } from '../config.ts';

const MAIN = path.resolve(import.meta.dirname, '../main.js');

interface Log {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The address the server listens on, as a URL a process on this machine reaches it by. */
function localUrl(config: Pick<Config, 'host' | 'port'>): string {
  const host = config.host === '0.0.0.0' || config.host === '::' || config.host === '' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

export function startBuiltinRunner(config: Config, registrationToken: string, log: Log): { stop(): Promise<void> } {
  let child: ChildProcess | null = null;
  let stopping = false;
  let failures = 0;
  const start = () => {
    const started = Date.now();
    const env: Record<string, string | undefined> = {
      ...process.env,
      QUARRY_RUNNER_URL: localUrl(config),
      QUARRY_RUNNER_REGISTRATION_TOKEN: registrationToken,
      QUARRY_RUNNER_WORK_DIR: path.join(config.dataDir, 'runner'),
      QUARRY_RUNNER_DESCRIPTION: process.env.QUARRY_RUNNER_DESCRIPTION || 'built-in runner',
      // Its jobs end before the server's own deadline, so that their outcome still reaches it.
      QUARRY_RUNNER_SHUTDOWN_TIMEOUT: String(Math.max(1, Math.floor((config.shutdownTimeoutMs * 0.8) / 1000))),
    };
    child = spawn(process.execPath, [MAIN, 'runner'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
    log.info({ pid: child.pid }, 'started the built-in runner');
    child.once('exit', (code, signal) => {
      child = null;
      if (stopping) return;
      // One that keeps failing at once is started less and less often, up to once a minute.
      failures = Date.now() - started < 10_000 ? failures + 1 : 0;
      const delay = Math.min(60_000, 1000 * 2 ** failures);
      log.error({ code, signal, restartInMs: delay }, 'the built-in runner exited; starting it again');
      setTimeout(() => {
        if (!stopping) start();
      }, delay).unref();
    });
  };
  start();
  return {
    async stop() {
      stopping = true;
      const running = child;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      await exited;
    },
  };
}
