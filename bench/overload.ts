// Overload: the server (one process, SQLite, the benchmark data of bench/seed.ts) under many
// connections of a heavy list, while the health probes are asked on new connections every 200 ms;
// then how soon it answers normally once the load stops. What the README promises: probes within
// a second under any load, 503 with Retry-After instead of waiting, memory bounded.
//
//   node bench/overload.ts            OVERLOAD_SECONDS=45 OVERLOAD_CONNECTIONS=200, the defaults
//   QUARRY_OVERLOAD_LAG=0 node bench/overload.ts     the same without shedding for lateness
//
// The load comes from autocannon in a process of its own, so that the probes' timing is not the
// load generator's. Prints one JSON object.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seed } from './seed.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.OVERLOAD_SECONDS ?? 45);
const CONNECTIONS = Number(process.env.OVERLOAD_CONNECTIONS ?? 200);
const PORT = Number(process.env.OVERLOAD_PORT ?? 18_000 + Math.floor(Math.random() * 2000));
const LIST = '/api/v4/projects?per_page=100';

interface Answer {
  status: number;
  ms: number;
}

/** One GET on a connection of its own; status 0 for an error or no answer within timeoutMs. */
function get(url: string, headers: Record<string, string> = {}, timeoutMs = 10_000): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(`http://127.0.0.1:${PORT}${url}`, { agent: false, headers, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const round = (n: number) => Math.round(n);

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

const dataDir = process.env.OVERLOAD_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-overload-'));
const env = { ...process.env, QUARRY_DATA_DIR: dataDir, QUARRY_ROOT_TOKEN: 'glpat-overload-root-000000001', QUARRY_PASSWORD_HASH_COST: '1024', QUARRY_LOG_LEVEL: 'warn' };
const tokenFile = path.join(dataDir, 'overload-member-token');
if (!fs.existsSync(tokenFile)) fs.writeFileSync(tokenFile, (await seed(env)).userToken);
const token = fs.readFileSync(tokenFile, 'utf8');

const server = spawn(process.execPath, [path.join(ROOT, 'src/main.js'), 'serve'], {
  env: { ...env, PORT: String(PORT), QUARRY_BUILTIN_RUNNER: '0', QUARRY_SSH_PORT: '0' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const stopServer = () => server.exitCode === null && server.kill('SIGTERM');
process.on('exit', stopServer);
try {
  let ready = 0;
  for (let i = 0; i < 400 && ready !== 200; i++) {
    ready = (await get('/-/readiness', {}, 1000)).status;
    if (ready !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (ready !== 200) throw new Error('the server did not start');

  const probes: (Answer & { at: number; path: string })[] = [];
  const rss: number[] = [];
  const loadStart = performance.now();
  const cannon = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-c', String(CONNECTIONS), '-d', String(SECONDS), '-t', '10', '-j', '-H', `PRIVATE-TOKEN: ${token}`, `http://127.0.0.1:${PORT}${LIST}`],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let output = '';
  cannon.stdout.on('data', (chunk) => (output += chunk));
  const cannonDone = new Promise<void>((resolve) => cannon.on('exit', () => resolve()));

  const pending: Promise<void>[] = [];
  const prober = setInterval(() => {
    const probePath = probes.length % 2 === 0 ? '/-/liveness' : '/-/readiness';
    const at = performance.now() - loadStart;
    const entry = { at, path: probePath, status: -1, ms: 0 };
    probes.push(entry);
    pending.push(get(probePath).then((a) => void Object.assign(entry, a)));
  }, 200);
  const sampler = setInterval(() => rss.push(rssMb(server.pid as number)), 1000);
  await cannonDone;
  const loadEnd = performance.now();
  clearInterval(prober);
  clearInterval(sampler);

  // Recovery: the first list answered 200, and the first one answered as fast as on an idle server.
  let firstOk = -1;
  let firstFast = -1;
  for (let i = 0; i < 2000 && firstFast < 0; i++) {
    const a = await get(LIST, { 'private-token': token });
    const since = performance.now() - loadEnd;
    if (a.status === 200 && firstOk < 0) firstOk = since;
    if (a.status === 200 && a.ms < 200) firstFast = since;
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(pending);

  const result = JSON.parse(output);
  const probeMs = probes.filter((p) => p.status === 200).map((p) => p.ms).sort((a, b) => a - b);
  const summary = {
    connections: CONNECTIONS,
    seconds: SECONDS,
    overloadLag: process.env.QUARRY_OVERLOAD_LAG ?? 'default',
    answers2xx: result['2xx'],
    answers2xxPerSecond: round(result['2xx'] / SECONDS),
    answersNon2xx: result.non2xx,
    answers5xx: result['5xx'],
    timeouts: result.timeouts,
    errors: result.errors,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    probes: {
      sent: probes.length,
      answered200: probeMs.length,
      failed: probes.filter((p) => p.status !== 200).length,
      p50: round(percentile(probeMs, 50)),
      p99: round(percentile(probeMs, 99)),
      max: round(probeMs.at(-1) ?? 0),
      /** When (ms into the load) the probes over a second were sent, and how long they took. */
      overOneSecond: probes.filter((p) => p.ms > 1000).map((p) => `${p.path} at ${round(p.at)}: ${round(p.ms)}`),
    },
    rssMbMax: round(Math.max(...rss)),
    recovery: { firstOkMs: round(firstOk), firstFastMs: round(firstFast) },
  };
  console.log(JSON.stringify(summary, null, 2));
} finally {
  stopServer();
  if (!process.env.OVERLOAD_DATA_DIR) fs.rmSync(dataDir, { recursive: true, force: true });
}
