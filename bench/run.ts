// `npm run bench`: seeds a fresh database per dialect, starts the server as a child process,
// measures start-up and memory, drives each scenario from a separate load process, captures the
// plan of the member's project list (and, on SQLite, measures that list again with twice the
// projects), and records the figures in bench/RESULTS.md. Children, data dirs and the benchmark
// database are removed even when a step fails or the run is interrupted.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { LoadOutput } from './load.ts';
import { type ExplainedQuery, explainMemberList } from './plans.ts';
import { type DialectName, type DialectResult, type ProcessBurst, type ScenarioOutcome, type Scaling, type WorkersResult, machineDescription, writeResults } from './report.ts';
import { type GitTimings, buildFixture, measureGit } from './repository.ts';
import { type LoadJob, SCENARIOS, type Scenario } from './scenarios.ts';
import { NAMESPACE_SEARCH_TERMS, SIZES, type Seeded, addPersonalProjects, seed } from './seed.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const RESULTS_FILE = path.join(ROOT, 'bench', 'RESULTS.md');
const STARTS = 3;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, got "${raw}"`);
  return n;
}

const durationSeconds = positiveInt('BENCH_DURATION', 10);
const warmupSeconds = Math.min(3, Math.max(1, Math.round(durationSeconds / 5)));
const scaleSeconds = positiveInt('BENCH_SCALE_DURATION', 5);
const connections = positiveInt('BENCH_CONNECTIONS', 10);
const workers = positiveInt('BENCH_WORKERS', os.availableParallelism());
const pgAdminUrl = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const only = process.env.BENCH_ONLY || '';
if (only && only !== 'sqlite' && only !== 'postgres') throw new Error(`BENCH_ONLY must be sqlite or postgres, got "${only}"`);
const dialects: DialectName[] = only ? [only as DialectName] : ['sqlite', 'postgres'];

// Everything that must not outlive the run, whatever happens.
const children = new Set<ChildProcess>();
const cleanups = new Set<() => Promise<void>>();

async function cleanUp(): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  for (const task of [...cleanups].reverse()) {
    cleanups.delete(task);
    await task().catch((error: unknown) => log(`cleanup failed: ${String(error)}`));
  }
}

process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    void cleanUp().finally(() => process.exit(130));
  });
}

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The processes a process has started and that still run. */
function childPids(pid: number): number[] {
  return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
}

/**
 * Resident memory of the server: its process and, with several workers, theirs too (and the git
 * processes of the moment; one that has just ended counts for nothing).
 */
function rssMb(pid: number, child = false): number {
  let status = '';
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (error) {
    if (child) return 0;
    throw error;
  }
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) {
    if (child) return 0;
    throw new Error(`no VmRSS for process ${pid}`);
  }
  let children: number[] = [];
  try {
    children = childPids(pid);
  } catch {
    // ended meanwhile
  }
  return Number(kb) / 1024 + children.reduce((sum, c) => sum + rssMb(c, true), 0);
}

/** The status of one GET, or null when nothing answers yet. */
function probe(port: number, urlPath: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? null));
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(null));
  });
}

/** Only the server's own settings, so that the caller's environment cannot change the figures. */
function serverEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('QUARRY_') && key !== 'DATABASE_URL' && key !== 'PORT' && key !== 'HOST') env[key] = value;
  }
  // The server alone: the built-in runner, a process of its own, has its section (bench/runner.ts), and so has the SSH server (bench/ssh.ts).
  return { ...env, HOST: '127.0.0.1', QUARRY_LOG_LEVEL: 'silent', QUARRY_BUILTIN_RUNNER: '0', QUARRY_SSH_PORT: '0', ...settings };
}

interface Server {
  child: ChildProcess;
  startupMs: number;
  stop(): Promise<void>;
}

async function startServer(env: NodeJS.ProcessEnv, port: number): Promise<Server> {
  const started = performance.now();
  const child = track(spawn(process.execPath, ['src/main.js', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const stopped = await Promise.race([exit.then(() => true), sleep(10_000).then(() => false)]);
    if (!stopped) {
      child.kill('SIGKILL');
      await exit;
    }
  };
  while (true) {
    if (exited) throw new Error(`the server exited during start-up:\n${stderr}`);
    if ((await probe(port, '/-/readiness')) === 200) return { child, startupMs: performance.now() - started, stop };
    if (performance.now() - started > 30_000) {
      await stop();
      throw new Error(`the server did not become ready within 30 s:\n${stderr}`);
    }
    await sleep(5);
  }
}

async function runLoad(job: LoadJob): Promise<LoadOutput> {
  const child = track(spawn(process.execPath, ['bench/load.ts', JSON.stringify(job)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] }));
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const limit = setTimeout(() => child.kill('SIGKILL'), (job.durationSeconds + job.warmupSeconds + 60) * 1000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(limit);
  if (code !== 0) return { failed: `the load generator exited with ${code}` };
  return JSON.parse(stdout) as LoadOutput;
}

/** Scenarios not measured because they answered unexpectedly; the run then exits non-zero. */
let failures = 0;

async function measure(s: Scenario, server: Server, job: Omit<LoadJob, 'scenario'>, dialect: DialectName): Promise<ScenarioOutcome> {
  log(`${dialect}: ${s.label}`);
  const output = await runLoad({ ...job, scenario: s.key });
  if (!('result' in output)) {
    if ('failed' in output) failures++;
    log(`${dialect}: ${'unavailable' in output ? `not available: ${output.unavailable}` : `failed: ${output.failed}`}`);
    return { key: s.key, ...output };
  }
  const { result } = output;
  const rssAfterMb = rssMb(server.child.pid!);
  log(
    `${dialect}: ${Math.round(result.rps)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, non-2xx ${result.non2xx}, RSS ${rssAfterMb.toFixed(0)} MB`,
  );
  return { key: s.key, result, rssAfterMb };
}

async function plansOf(env: NodeJS.ProcessEnv, memberId: number): Promise<ExplainedQuery[] | string> {
  try {
    return await explainMemberList(env, memberId);
  } catch (error) {
    failures++;
    log(`plans: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof Error ? error.message : String(error);
  }
}

async function withPgAdmin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgAdminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** A request as the administrator; the parsed JSON answer. */
function requestJson(method: 'GET' | 'POST', port: number, urlPath: string, token: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: urlPath, method, agent: false, headers: { 'content-type': 'application/json', 'private-token': token } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.once('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text || '{}') as unknown }));
      },
    );
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function postJson(port: number, urlPath: string, token: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const { status, json } = await requestJson('POST', port, urlPath, token, body);
  return { status, json: json as Record<string, unknown> };
}

/** The newest commits of the fixture's project, for the scenarios that show one by id. */
async function newestCommitIds(port: number, token: string, projectId: number | null): Promise<string[]> {
  if (projectId === null) return [];
  const { status, json } = await requestJson('GET', port, `/api/v4/projects/${projectId}/repository/commits?per_page=100`, token);
  return status === 200 ? (json as { id: string }[]).map((c) => c.id) : [];
}

/** The repository reads, measured again at this many connections for the process count. */
const BURST_CONNECTIONS = 100;
const BURST_SECONDS = 3;

/**
 * The most processes the server ran at once (its git readers and walks) while every repository
 * read scenario is driven at BURST_CONNECTIONS connections, sampled every 20 ms.
 */
async function processesUnderBurst(server: Server, job: Omit<LoadJob, 'scenario'>, dialect: DialectName): Promise<ProcessBurst | string> {
  const reads = SCENARIOS.filter((s) => s.target?.orShareOf !== undefined);
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, childPids(server.child.pid!).length)), 20);
  try {
    const burst = { ...job, connections: BURST_CONNECTIONS, durationSeconds: BURST_SECONDS, warmupSeconds: 0 };
    const outcomes = [];
    for (const s of reads) outcomes.push(await measure(s, server, burst, dialect));
    const failed = outcomes.filter((o) => !('result' in o) || o.result.non2xx + o.result.errors + o.result.timeouts > 0).map((o) => o.key);
    return { connections: BURST_CONNECTIONS, seconds: BURST_SECONDS, scenarios: reads.length, mostProcesses: most, failed };
  } catch (error) {
    failures++;
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearInterval(sampler);
  }
}

/** The fixture repository, built once per run in a directory removed at the end. */
let fixture: Promise<{ dir: string; repo: string }> | null = null;
function fixtureRepository(): Promise<{ dir: string; repo: string }> {
  fixture ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-bench-git-'));
    cleanups.add(async () => fs.rmSync(dir, { recursive: true, force: true }));
    log(`building the fixture repository`);
    return { dir, repo: await buildFixture(dir) };
  })();
  return fixture;
}

/**
 * Pushes the fixture to new projects and clones it back, against git http-backend; the last
 * project pushed to then serves the repository scenarios. A failure is reported, not thrown.
 */
async function measureRepository(port: number, adminToken: string, dialect: DialectName): Promise<{ git: GitTimings | string; projectId: number | null }> {
  let projectId: number | null = null;
  try {
    const { dir, repo } = await fixtureRepository();
    const work = fs.mkdtempSync(path.join(dir, `${dialect}-`));
    log(`${dialect}: git push and clone, against git http-backend`);
    const { timings } = await measureGit(work, repo, {
      async newEmptyRepositoryUrl(round) {
        const created = await postJson(port, '/api/v4/projects', adminToken, { name: `bench-repository-${round}` });
        if (created.status !== 201) throw new Error(`POST /projects answered ${created.status}`);
        projectId = Number(created.json.id);
        return `http://root:${adminToken}@127.0.0.1:${port}/${String(created.json.path_with_namespace)}.git`;
      },
    });
    return { git: timings, projectId };
  } catch (error) {
    failures++;
    const reason = error instanceof Error ? error.message : String(error);
    log(`${dialect}: git: ${reason}`);
    return { git: reason, projectId };
  }
}

/** A fresh data dir, and for PostgreSQL a fresh database; both are registered for removal. */
async function freshStorage(dialect: DialectName): Promise<{ dataDir: string; databaseUrl: string | null; remove: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `quarry-bench-${dialect}-`));
  const removals: Array<() => Promise<void>> = [async () => fs.rmSync(dataDir, { recursive: true, force: true })];
  let databaseUrl: string | null = null;
  if (dialect === 'postgres') {
    const name = `quarry_bench_${process.pid}`;
    await withPgAdmin(async (c) => {
      await c.query(`drop database if exists ${name} with (force)`);
      await c.query(`create database ${name}`);
    });
    removals.push(() => withPgAdmin(async (c) => void (await c.query(`drop database if exists ${name} with (force)`))));
    const url = new URL(pgAdminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  const remove = async () => {
    cleanups.delete(remove);
    for (const r of removals) await r();
  };
  cleanups.add(remove);
  return { dataDir, databaseUrl, remove };
}

async function benchDialect(dialect: DialectName): Promise<DialectResult> {
  const loadAverage = os.loadavg()[0];
  const storage = await freshStorage(dialect);
  try {
    const adminToken = `glpat-bench-${randomBytes(16).toString('hex')}`;
    const port = await freePort();
    const env = serverEnv({
      PORT: String(port),
      QUARRY_DATA_DIR: storage.dataDir,
      QUARRY_ROOT_TOKEN: adminToken,
      ...(storage.databaseUrl ? { DATABASE_URL: storage.databaseUrl } : {}),
    });
    log(`${dialect}: seeding ${SIZES.users.toLocaleString('en-US')} users, ${SIZES.projects.toLocaleString('en-US')} projects`);
    const seeded: Seeded = await seed(env);
    log(`${dialect}: seeded in ${Math.round(seeded.seedMs)} ms: ${JSON.stringify(seeded.counts)}`);
    const plans = await plansOf(env, seeded.memberId);

    // Several starts on the same data dir; the last one stays up for the load.
    const startupMs: number[] = [];
    let server: Server | null = null;
    for (let i = 0; i < STARTS; i++) {
      if (server) await server.stop();
      server = await startServer(env, port);
      startupMs.push(server.startupMs);
    }
    let live = server!;
    try {
      log(`${dialect}: started in ${startupMs.map((t) => Math.round(t)).join(', ')} ms`);
      await sleep(1000);
      const idleRssMb = rssMb(live.child.pid!);
      log(`${dialect}: idle RSS ${idleRssMb.toFixed(0)} MB`);

      const repository = await measureRepository(port, adminToken, dialect);
      const job = {
        url: `http://127.0.0.1:${port}`,
        adminToken,
        userToken: seeded.userToken,
        maxUserId: seeded.maxUserId,
        memberProjectIds: seeded.memberVisibleProjectIds,
        searchTerms: NAMESPACE_SEARCH_TERMS,
        repositoryProjectId: repository.projectId,
        repositoryCommitIds: await newestCommitIds(port, adminToken, repository.projectId),
        connections,
        durationSeconds,
        warmupSeconds,
      };
      const scenarios: ScenarioOutcome[] = [];
      for (const s of SCENARIOS) scenarios.push(await measure(s, live, job, dialect));
      log(`${dialect}: the repository reads at ${BURST_CONNECTIONS} connections, counting the server's processes`);
      const burst = await processesUnderBurst(live, job, dialect);

      // The same scenarios served by several worker processes (QUARRY_WORKERS).
      let multi: WorkersResult | undefined;
      if (workers > 1) {
        await live.stop();
        log(`${dialect}: again with QUARRY_WORKERS=${workers}`);
        live = await startServer({ ...env, QUARRY_WORKERS: String(workers) }, port);
        await sleep(1000);
        multi = { count: workers, startupMs: live.startupMs, idleRssMb: rssMb(live.child.pid!), scenarios: [] };
        for (const s of SCENARIOS.filter((x) => x.key !== 'create-user')) multi.scenarios.push(await measure(s, live, job, dialect));
        await live.stop();
        live = await startServer(env, port);
      }

      // The member's list at twice the projects, against the same list measured just before.
      let scaling: Scaling | undefined;
      if (dialect === 'sqlite') {
        const memberList = SCENARIOS.find((s) => s.key === 'projects-member')!;
        const short = { ...job, durationSeconds: scaleSeconds, warmupSeconds: 1 };
        scaling = { durationSeconds: scaleSeconds, points: [] };
        const point = async (counts: Seeded['counts']) => {
          const queries = await plansOf(env, seeded.memberId);
          scaling!.points.push({ counts, outcome: await measure(memberList, live, short, dialect), queries: typeof queries === 'string' ? [] : queries });
        };
        await point(seeded.counts);
        await live.stop();
        log(`${dialect}: adding ${SIZES.projects.toLocaleString('en-US')} projects`);
        const grown = await addPersonalProjects(env, SIZES.projects, seeded.memberId);
        live = await startServer(env, port);
        await point(grown);
      }
      return {
        dialect,
        date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        machine: machineDescription(),
        loadAverage,
        durationSeconds,
        warmupSeconds,
        connections,
        counts: seeded.counts,
        seedMs: seeded.seedMs,
        startupMs,
        idleRssMb,
        scenarios,
        plans,
        scaling,
        git: repository.git,
        burst,
        workers: multi,
      };
    } finally {
      await live.stop();
    }
  } finally {
    await storage.remove();
  }
}

async function main(): Promise<void> {
  try {
    // Written after each dialect, so that a later failure keeps the figures already measured.
    for (const dialect of dialects) {
      writeResults(RESULTS_FILE, [await benchDialect(dialect)]);
      log(`${dialect}: wrote ${path.relative(process.cwd(), RESULTS_FILE)}`);
    }
    // The CI hot paths, the built-in runner, the issue lists, merges, to-do lists, git over SSH and monitoring intake, on SQLite, each in a process of its own that writes its section.
    if (dialects.includes('sqlite')) {
      log('ci: pipelines, jobs, runners and logs; the built-in runner; issue lists; merges; to-do lists; git over SSH; monitoring intake');
      for (const script of ['ci.ts', 'runner.ts', 'issues.ts', 'merge.ts', 'todos.ts', 'ssh.ts', 'intake.ts']) {
        const child = spawn(process.execPath, [path.join(ROOT, 'bench', script)], { stdio: ['ignore', 'ignore', 'inherit'] });
        children.add(child);
        const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
        children.delete(child);
        if (code !== 0) failures++;
      }
    }
  } finally {
    await cleanUp();
  }
  if (failures > 0) {
    log(`${failures} step(s) failed; see bench/RESULTS.md`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
