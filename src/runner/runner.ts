// The runner: a client of the runner protocol that takes jobs and runs them with the shell
// executor. It registers once (or is given its token), keeps its token in a file of its own, and
// runs up to `concurrent` jobs, each slot long-polling the server for its next job. Stopping: no
// new job is taken, the jobs running get `shutdownTimeoutMs` to finish, and those still running
// then are ended and reported failed (`runner_system_failure`), so none stays running.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import { runJob } from './job-run.ts';
import { type JobPayload, RunnerApi, RunnerApiError } from './runner-api.ts';

export interface RunnerOptions {
  url: string;
  /** A runner token to use as it is. */
  token: string | null;
  /** Registers a new runner with it when there is no usable token. */
  registrationToken: string | null;
  /** Where a registered runner's token is kept, for the next start. */
  tokenFile: string;
  workDir: string;
  concurrent: number;
  tags: string[];
  runUntagged: boolean;
  description: string;
  sandbox: 'none' | 'bwrap';
  shutdownTimeoutMs: number;
  log: Logger;
}

export interface RunningRunner {
  /** Stops taking jobs and ends the running ones as described above. */
  stop(): Promise<void>;
}

/** The runner token to use: given, kept from an earlier registration that the server still knows, or a new registration's. */
async function runnerToken(api: RunnerApi, options: RunnerOptions): Promise<{ token: string; id: number | null }> {
  if (options.token) {
    if (!(await api.verify(options.token))) throw new RunnerApiError(403, 'the server does not know this runner token');
    return { token: options.token, id: null };
  }
  const kept = readTokenFile(options.tokenFile, api.base);
  if (kept && (await api.verify(kept.token))) return kept;
  if (!options.registrationToken) throw new RunnerApiError(0, 'no runner token: give a registration token (--registration-token or QUARRY_RUNNER_REGISTRATION_TOKEN) or a runner token (--token)');
  const registered = await api.register(options.registrationToken, { description: options.description, tags: options.tags, runUntagged: options.runUntagged });
  fs.mkdirSync(path.dirname(options.tokenFile), { recursive: true });
  fs.writeFileSync(options.tokenFile, `${JSON.stringify({ url: api.base, id: registered.id, token: registered.token })}\n`, { mode: 0o600 });
  options.log.info({ runner: registered.id }, 'registered with the server');
  return registered;
}

function readTokenFile(file: string, base: string): { token: string; id: number | null } | null {
  try {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { url?: string; token?: string; id?: number };
    return kept.url === base && typeof kept.token === 'string' ? { token: kept.token, id: kept.id ?? null } : null;
  } catch {
    return null;
  }
}

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });

/** The runner token, waiting for a server not yet up (or failing) rather than giving up. */
async function tokenWhenReachable(api: RunnerApi, options: RunnerOptions, signal: AbortSignal): Promise<{ token: string; id: number | null }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await runnerToken(api, options);
    } catch (error) {
      const unreachable = !(error instanceof RunnerApiError) || error.status >= 500;
      if (!unreachable || signal.aborted) throw error;
      if (attempt % 20 === 0) options.log.warn({ url: options.url, err: (error as Error).message }, 'the server cannot be reached yet; trying again');
      await pause(Math.min(5000, 100 * 2 ** Math.min(attempt, 6)), signal);
    }
  }
}

export async function startRunner(options: RunnerOptions, signal: AbortSignal = new AbortController().signal): Promise<RunningRunner> {
  const api = new RunnerApi(options.url);
  let { token } = await tokenWhenReachable(api, options, signal);
  const polling = new AbortController();
  // A runner the server no longer knows (deleted, or the instance reset) registers again, once for
  // all its slots, when it has a registration token.
  let renewing: Promise<void> | null = null;
  const renew = () =>
    (renewing ??= tokenWhenReachable(api, options, polling.signal)
      .then((fresh) => {
        if (fresh.token !== token) options.log.info({ runner: fresh.id }, 'the server did not know this runner: registered again');
        token = fresh.token;
      })
      .catch((error: unknown) => options.log.error({ err: (error as Error).message }, 'the server does not know this runner, and it cannot register again'))
      .finally(() => {
        renewing = null;
      }));
  const ending = new AbortController();
  const running = new Set<Promise<void>>();

  const slot = async (index: number) => {
    let lastUpdate: string | null = null;
    let failures = 0;
    while (!polling.signal.aborted) {
      let job: JobPayload | null = null;
      try {
        ({ job, lastUpdate } = await api.requestJob(token, lastUpdate ?? '', polling.signal));
        failures = 0;
      } catch (error) {
        if (polling.signal.aborted) break;
        failures++;
        if (error instanceof RunnerApiError && error.status === 403 && options.registrationToken) await renew();
        // The server is away or refuses: ask again later, more slowly each time, up to 15 seconds.
        if (failures === 1 || failures % 20 === 0) options.log.warn({ err: (error as Error).message }, 'asking for a job failed');
        await pause(Math.min(15_000, 250 * 2 ** Math.min(failures, 6)), polling.signal);
        continue;
      }
      if (!job) continue;
      options.log.info({ job: job.id, name: job.job_info.name, project: job.job_info.project_id }, 'running a job');
      const done = runJob(job, { api, runnerToken: token, description: options.description, buildsDir: path.join(options.workDir, 'builds'), cacheDir: path.join(options.workDir, 'cache'), slot: index, sandbox: options.sandbox, abort: ending.signal }).catch(
        (error: unknown) => options.log.error({ job: job.id, err: error }, 'the job could not be run'),
      );
      running.add(done);
      await done;
      running.delete(done);
      options.log.info({ job: job.id }, 'job finished');
    }
  };
  const slots = Array.from({ length: options.concurrent }, (_, i) => slot(i));
  options.log.info({ url: options.url, concurrent: options.concurrent, tags: options.tags, sandbox: options.sandbox }, 'runner started');

  return {
    async stop() {
      polling.abort();
      if (running.size > 0) {
        options.log.info({ jobs: running.size, waitMs: options.shutdownTimeoutMs }, 'stopping: waiting for the running jobs');
        const timer = setTimeout(() => ending.abort(), options.shutdownTimeoutMs);
        await Promise.all(running);
        clearTimeout(timer);
      }
      await Promise.all(slots);
    },
  };
}
