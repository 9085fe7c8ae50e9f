// `node bench/compare.ts <checkout A> <checkout B> [scenario…]`: the same scenarios against two
// versions of the server, interleaved in the same minutes, because single runs of a shared host
// differ by more than most changes. Each checkout (with its node_modules) seeds its own SQLite
// database with its own bench/seed.ts and serves it; both servers are pinned to the first core and
// the load process (this checkout's bench/load.ts) to the second. Rounds alternate the order of
// the two versions. Printed: the median req/s and the server's CPU time per request of each.
// COMPARE_ROUNDS (default 5), COMPARE_SECONDS (default 3), BENCH_CONNECTIONS (default 10).
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuSeconds, round, sleep } from './ci-server.ts';
import type { LoadOutput } from './load.ts';
import { type LoadJob, type ScenarioKey, scenario } from './scenarios.ts';
import type { Seeded } from './seed.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 5);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROOT_TOKEN = 'glpat-compare-root-token-000001';
const DEFAULT_SCENARIOS: ScenarioKey[] = ['liveness', 'user-by-id', 'project-by-id-member', 'projects-member'];

const children = new Set<ChildProcess>();
const dataDirs: string[] = [];
function cleanUp(): void {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanUp);
process.once('SIGINT', () => process.exit(130));

/** Pins a command to one core where `taskset` exists and there are two cores to share. */
function pinned(core: number, command: string, args: string[]): [string, string[]] {
  const canPin = os.availableParallelism() >= 2 && fs.existsSync('/usr/bin/taskset');
  return canPin ? ['/usr/bin/taskset', ['-c', String(core), command, ...args]] : [command, args];
}

function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
    child.once('exit', (code) => {
      children.delete(child);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ').slice(0, 80)} exited with ${code}`));
    });
  });
}

interface Version {
  label: string;
  job: Omit<LoadJob, 'scenario'>;
  serverPid: number;
}

async function startVersion(checkout: string, label: string, port: number): Promise<Version> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-compare-'));
  dataDirs.push(dataDir);
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('QUARRY_') && k !== 'DATABASE_URL')),
    HOST: '127.0.0.1',
    PORT: String(port),
    QUARRY_DATA_DIR: dataDir,
    QUARRY_ROOT_TOKEN: ROOT_TOKEN,
    QUARRY_LOG_LEVEL: 'silent',
    QUARRY_BUILTIN_RUNNER: '0',
    QUARRY_SSH_PORT: '0',
  };
  process.stderr.write(`[compare] ${label}: seeding\n`);
  const seedScript = 'const { seed } = await import(process.argv[1]); process.stdout.write(JSON.stringify(await seed(process.env)));';
  const seeded = JSON.parse(await run(process.execPath, ['--input-type=module', '-e', seedScript, path.join(checkout, 'bench', 'seed.ts')], { cwd: checkout, env })) as Seeded;
  const [command, args] = pinned(0, process.execPath, ['src/main.js', 'serve']);
  const server = spawn(command, args, { cwd: checkout, env, stdio: 'ignore' });
  children.add(server);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ready = await fetch(`${url}/-/readiness`).then((r) => r.ok, () => false);
    if (ready) break;
    if (i > 300) throw new Error(`${label} did not start`);
    await sleep(100);
  }
  // The pid that serves: taskset execs the command, so it is the spawned one.
  return {
    label,
    serverPid: server.pid!,
    job: {
      url,
      adminToken: ROOT_TOKEN,
      userToken: seeded.userToken,
      maxUserId: seeded.maxUserId,
      memberProjectIds: seeded.memberVisibleProjectIds,
      searchTerms: ['backend', 'frontend', 'platform'],
      repositoryProjectId: null,
      repositoryCommitIds: [],
      connections: CONNECTIONS,
      durationSeconds: SECONDS,
      warmupSeconds: 1,
    },
  };
}

async function measure(version: Version, key: ScenarioKey): Promise<{ rps: number; cpuUs: number }> {
  const job: LoadJob = { ...version.job, scenario: key, warmupSeconds: 0 };
  // A short warm-up of its own, so that the measured part starts with the JIT settled.
  await run(...pinned(1, process.execPath, ['bench/load.ts', JSON.stringify({ ...job, durationSeconds: 1 })]), { cwd: ROOT });
  const cpuBefore = cpuSeconds(version.serverPid);
  const output = JSON.parse(await run(...pinned(1, process.execPath, ['bench/load.ts', JSON.stringify(job)]), { cwd: ROOT })) as LoadOutput;
  const cpu = cpuSeconds(version.serverPid) - cpuBefore;
  if (!('result' in output)) throw new Error(`${version.label} ${key}: ${JSON.stringify(output)}`);
  return { rps: output.result.rps, cpuUs: (cpu * 1e6) / output.result.requests };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const [a, b, ...keys] = process.argv.slice(2);
  if (!a || !b) throw new Error('usage: node bench/compare.ts <checkout A> <checkout B> [scenario…]');
  const scenarios = (keys.length > 0 ? keys : DEFAULT_SCENARIOS) as ScenarioKey[];
  for (const key of scenarios) scenario(key);
  const versions = [await startVersion(path.resolve(a), `A (${a})`, 19_400), await startVersion(path.resolve(b), `B (${b})`, 19_401)];
  await sleep(1000);
  const figures = new Map<string, { rps: number[]; cpuUs: number[] }>();
  for (let roundNo = 0; roundNo < ROUNDS; roundNo++) {
    const order = roundNo % 2 === 0 ? versions : [...versions].reverse();
    for (const key of scenarios) {
      for (const version of order) {
        const m = await measure(version, key);
        const entry = figures.get(`${key}|${version.label}`) ?? { rps: [], cpuUs: [] };
        entry.rps.push(m.rps);
        entry.cpuUs.push(m.cpuUs);
        figures.set(`${key}|${version.label}`, entry);
      }
    }
    process.stderr.write(`[compare] round ${roundNo + 1} of ${ROUNDS} done\n`);
  }
  console.log(`${new Date().toISOString()} · ${os.cpus()[0]?.model.trim()}, ${os.cpus().length} cores · ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections`);
  console.log(`| Scenario | A req/s (CPU µs/req) | B req/s (CPU µs/req) | B/A req/s | B/A CPU |`);
  console.log('|---|--:|--:|--:|--:|');
  for (const key of scenarios) {
    const [fa, fb] = versions.map((v) => figures.get(`${key}|${v.label}`)!);
    const [ra, rb, ca, cb] = [median(fa.rps), median(fb.rps), median(fa.cpuUs), median(fb.cpuUs)];
    console.log(`| ${scenario(key).label} | ${Math.round(ra)} (${Math.round(ca)}) | ${Math.round(rb)} (${Math.round(cb)}) | ×${round(rb / ra, 2)} | ×${round(cb / ca, 2)} |`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`[compare] ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
