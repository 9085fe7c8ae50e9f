// `quarry runner`: the built-in runner as a process of its own. Flags win over the environment.
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { startRunner } from './runner.ts';

const RUNNER_USAGE = `usage: quarry runner [options]

  --url URL                  the server (QUARRY_RUNNER_URL; default http://127.0.0.1:8080)
  --registration-token T     registers a new runner with it (QUARRY_RUNNER_REGISTRATION_TOKEN)
  --token T                  a runner token to use instead (QUARRY_RUNNER_TOKEN)
  --work-dir DIR             builds, caches and the kept runner token (QUARRY_RUNNER_WORK_DIR;
                             default ./quarry-runner)
  --concurrent N             jobs at once (QUARRY_RUNNER_CONCURRENT; default: the number of cores)
  --tag-list a,b             the runner's tags (QUARRY_RUNNER_TAGS)
  --run-untagged             also take jobs without tags (QUARRY_RUNNER_RUN_UNTAGGED=1; the default
                             when no tags are given)
  --description TEXT         the runner's name on the server (QUARRY_RUNNER_DESCRIPTION)
  --sandbox none|bwrap       run each job under bubblewrap (QUARRY_RUNNER_SANDBOX)
  --shutdown-timeout S       on SIGTERM, how long running jobs may go on (QUARRY_RUNNER_SHUTDOWN_TIMEOUT; 30)
`;

type Env = Record<string, string | undefined>;

export async function runnerCommand(args: string[], env: Env = process.env): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        url: { type: 'string' },
        'registration-token': { type: 'string' },
        token: { type: 'string' },
        'work-dir': { type: 'string' },
        concurrent: { type: 'string' },
        'tag-list': { type: 'string' },
        'run-untagged': { type: 'boolean' },
        description: { type: 'string' },
        sandbox: { type: 'string' },
        'shutdown-timeout': { type: 'string' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    process.stderr.write(`quarry runner: ${(error as Error).message}\n\n${RUNNER_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(RUNNER_USAGE);
    return 0;
  }
  const text = (flag: string, name: string) => (values[flag] as string | undefined) ?? (env[name] || undefined);
  const fail = (message: string) => {
    process.stderr.write(`quarry runner: ${message}\n`);
    return 2;
  };
  const concurrent = Number(text('concurrent', 'QUARRY_RUNNER_CONCURRENT') ?? os.availableParallelism());
  if (!Number.isInteger(concurrent) || concurrent < 1 || concurrent > 64) return fail('--concurrent must be a whole number from 1 to 64');
  const sandbox = text('sandbox', 'QUARRY_RUNNER_SANDBOX') ?? 'none';
  if (sandbox !== 'none' && sandbox !== 'bwrap') return fail('--sandbox must be none or bwrap');
  const shutdown = Number(text('shutdown-timeout', 'QUARRY_RUNNER_SHUTDOWN_TIMEOUT') ?? 30);
  if (!Number.isFinite(shutdown) || shutdown < 0) return fail('--shutdown-timeout must be a number of seconds');
  const url = text('url', 'QUARRY_RUNNER_URL') ?? 'http://127.0.0.1:8080';
  try {
    new URL(url);
  } catch {
    return fail(`--url is not a URL: ${url}`);
  }
  const tags = (text('tag-list', 'QUARRY_RUNNER_TAGS') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const workDir = path.resolve(text('work-dir', 'QUARRY_RUNNER_WORK_DIR') ?? 'quarry-runner');
  const log = pino({ name: 'runner', level: env.QUARRY_LOG_LEVEL || 'info' });
  // A stop asked for while waiting for the server ends the wait.
  const starting = new AbortController();
  const stopEarly = () => starting.abort();
  process.once('SIGTERM', stopEarly).once('SIGINT', stopEarly);
  const runner = await startRunner({
    url,
    token: text('token', 'QUARRY_RUNNER_TOKEN') ?? null,
    registrationToken: text('registration-token', 'QUARRY_RUNNER_REGISTRATION_TOKEN') ?? null,
    tokenFile: path.join(workDir, 'runner-token.json'),
    workDir,
    concurrent,
    tags,
    runUntagged: values['run-untagged'] === true || env.QUARRY_RUNNER_RUN_UNTAGGED === '1' || tags.length === 0,
    description: text('description', 'QUARRY_RUNNER_DESCRIPTION') ?? `quarry-runner on ${os.hostname()}`,
    sandbox,
    shutdownTimeoutMs: shutdown * 1000,
    log,
  }, starting.signal);
  process.off('SIGTERM', stopEarly).off('SIGINT', stopEarly);
  if (starting.signal.aborted) {
    await runner.stop();
    return 0;
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    runner.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  return -1;
}
