// What the CI benchmarks share (bench/ci.ts, bench/runner.ts): one `quarry serve` started as its
// own process on a fresh SQLite data directory, API calls with the root token, autocannon runs,
// CPU readings from /proc, commits that make pipelines, and the figures' arithmetic.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceSection } from './report.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_FILE = path.join(ROOT, 'bench', 'RESULTS.md');
export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
/** The server processes of the benches' second pass (BENCH_WORKERS, default the number of cores; 1 skips it), as `npm run bench` does. */
export const BENCH_WORKERS = Number(process.env.BENCH_WORKERS ?? os.availableParallelism());

export const TOKEN = 'glpat-ci-bench-root-token-0000001';

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** What an autocannon run measured. */
export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

/** A measure as a cell of the results' tables: its rate and latencies, and its answers that were not 2xx. */
export const measured = (r: Measure) => `${r.rps.toLocaleString('en')} req/s, p50 ${r.p50} / p99 ${r.p99} ms${r.non2xx > 0 ? `, ${r.non2xx.toLocaleString('en')} not 2xx` : ''}`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** CPU seconds a process has used (user + system). */
export function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The machine, the date and the load, for a section's heading line. */
export function machineLine(started: Date): string {
  const cpus = os.cpus();
  return `${started.toISOString()} · ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${round(os.totalmem() / 1024 ** 3)} GiB RAM, Node ${process.version} · load average ${os.loadavg()[0].toFixed(2)} before the run · ${DURATION} s per measure`;
}

export interface BenchServer {
  readonly base: string;
  readonly dataDir: string;
  /** The serving process's id, once started. */
  pid(): number;
  /** Starts the server, with `env` added to the environment it was made with (e.g. QUARRY_WORKERS for one start). */
  start(env?: Record<string, string>): Promise<number>;
  stop(): Promise<void>;
  api(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; ms: number }>;
  /** autocannon on one URL, in a process of its own (as root unless given another token; a GET unless given a request to send). */
  cannon(urlPath: string, connections?: number, token?: string, request?: CannonRequest): Promise<Measure>;
  /** Commits one file on main through the commits API (a push, as far as CI is concerned). */
  commit(projectId: number, file: string, content: string, create: boolean): Promise<void>;
  latestPipeline(projectId: number): Promise<{ id: number; status: string } | null>;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/** What autocannon sends instead of a GET: every request the same. */
export interface CannonRequest {
  method: string;
  body: string;
  headers: Record<string, string>;
}

export function benchServer(env: Record<string, string> = {}): BenchServer {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ci-bench-'));
  const port = 19_000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  let server: ReturnType<typeof spawn> | null = null;

  const api: BenchServer['api'] = async (method, urlPath, body, headers = { 'private-token': TOKEN }) => {
    for (let attempt = 0; ; attempt++) {
      const started = performance.now();
      const res = await fetch(`${base}${urlPath}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      // A busy machine makes the server shed load: the setup asks again, as clients are told to.
      if (res.status === 503 && attempt < 50) {
        await sleep(200);
        continue;
      }
      return { status: res.status, json: text ? JSON.parse(text) : null, ms: performance.now() - started };
    }
  };

  const self: BenchServer = {
    base,
    dataDir,
    pid: () => server?.pid as number,
    async start(extra: Record<string, string> = {}) {
      server = spawn(process.execPath, [path.join(ROOT, 'src/main.js'), 'serve'], {
        env: { ...process.env, PORT: String(port), QUARRY_DATA_DIR: dataDir, QUARRY_ROOT_TOKEN: TOKEN, QUARRY_LOG_LEVEL: 'warn', QUARRY_PASSWORD_HASH_COST: '1024', QUARRY_BUILTIN_RUNNER: '0', QUARRY_SSH_PORT: '0', ...env, ...extra },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      for (let i = 0; i < 600; i++) {
        const ok = await fetch(`${base}/-/readiness`).then((r) => r.ok, () => false);
        if (ok) return server.pid as number;
        await sleep(50);
      }
      throw new Error('the server did not start');
    },
    async stop() {
      if (!server || server.exitCode !== null) return;
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    },
    api,
    cannon(urlPath, connections = 10, token = TOKEN, request) {
      const sending = request ? ['-m', request.method, '-b', request.body, ...Object.entries(request.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`])] : [];
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-c', String(connections), '-d', String(DURATION), '-j', '-H', `PRIVATE-TOKEN: ${token}`, ...sending, `${base}${urlPath}`], { stdio: ['ignore', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.on('exit', () => {
          try {
            const r = JSON.parse(out);
            resolve({ rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx });
          } catch (error) {
            reject(error);
          }
        });
      });
    },
    async commit(projectId, file, content, create) {
      const res = await api('POST', `/api/v4/projects/${projectId}/repository/commits`, {
        branch: 'main',
        commit_message: `bench ${file}`,
        actions: [{ action: create ? 'create' : 'update', file_path: file, content }],
      });
      if (res.status !== 201) throw new Error(`commit: ${res.status} ${JSON.stringify(res.json)}`);
    },
    async latestPipeline(projectId) {
      return (await api('GET', `/api/v4/projects/${projectId}/pipelines?per_page=1`)).json[0] ?? null;
    },
    async close() {
      await self.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return self;
}

/** Runs `measure` against the benchmark's server, closed after, and writes its lines as section `name` of bench/RESULTS.md. */
export async function writeSection(name: string, bench: BenchServer, measure: () => Promise<string[]>): Promise<void> {
  try {
    const lines = await measure();
    replaceSection(RESULTS_FILE, name, lines.join('\n'));
    console.log(lines.join('\n'));
  } finally {
    await bench.close();
  }
}
