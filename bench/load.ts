// Load generator, run in its own process so that it does not share the server's CPU time slice
// or event loop: `node bench/load.ts '<LoadJob as JSON>'` prints one JSON LoadOutput on stdout.
import { createRequire } from 'node:module';
import { type LoadJob, type LoadRequest, scenario } from './scenarios.ts';

export interface LoadResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
}

/**
 * A measurement, or why the scenario was not measured: its route does not exist (yet), or its
 * first request did not answer the expected status.
 */
export type LoadOutput = { result: LoadResult } | { unavailable: string } | { failed: string };

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  timeout?: number;
  requests: Array<{ setupRequest: (req: Record<string, unknown>) => Record<string, unknown> }>;
}

interface AutocannonResult {
  requests: { average: number; total: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}

interface AutocannonRun extends PromiseLike<AutocannonResult> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}

// autocannon ships no type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: AutocannonOptions) => AutocannonRun;

interface Fired {
  result: AutocannonResult;
  /** Latencies of the 2xx answers in ms, sorted; autocannon's own histogram keeps whole ms only. */
  latencies: Float64Array;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The router's answer to a path no route matches; a resource the caller may not see says which. */
const UNKNOWN_ROUTE = '{"error":"404 Not Found"}';

async function preflight(job: LoadJob, req: LoadRequest, expected: number): Promise<LoadOutput | null> {
  const res = await fetch(new URL(req.path, job.url), { method: req.method, headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.status === expected) return null;
  const route = `${req.method} ${req.path.split('?')[0]}`;
  if (res.status === 404 && text === UNKNOWN_ROUTE) return { unavailable: `${route}: no such route yet` };
  return { failed: `${route} answered ${res.status} instead of ${expected}: ${text.slice(0, 200)}` };
}

async function fire(job: LoadJob, seconds: number, tag: string): Promise<Fired> {
  const s = scenario(job.scenario);
  let counter = 0;
  const latencies: number[] = [];
  const run = autocannon({
    url: job.url,
    connections: job.connections,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        setupRequest: (base) => {
          const r = s.next(job, counter++, tag);
          // Headers are copied: autocannon writes Content-Length into the object it is given.
          return { ...base, ...r, headers: { ...(base.headers as object), ...r.headers } };
        },
      },
    ],
  });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const result = await run;
  return { result, latencies: Float64Array.from(latencies).sort() };
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '') as LoadJob;
  const s = scenario(job.scenario);
  const tag = process.pid.toString(36);
  const skipped = await preflight(job, s.next(job, 0, `${tag}p`), s.expectedStatus);
  if (skipped) {
    process.stdout.write(`${JSON.stringify(skipped)}\n`);
    return;
  }
  if (job.warmupSeconds > 0) await fire(job, job.warmupSeconds, `${tag}w`);
  const { result: r, latencies } = await fire(job, job.durationSeconds, `${tag}m`);
  const result: LoadResult = {
    requests: r.requests.total,
    rps: r.requests.average,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    seconds: r.duration,
  };
  process.stdout.write(`${JSON.stringify({ result } satisfies LoadOutput)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`load: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
