// The built-in runner (issue 14): how soon a push's first job runs on an idle built-in runner, a
// 20-job pipeline of `true` jobs from push to success, and the server's CPU while one job writes a
// chatty log. One `quarry serve` on SQLite with its built-in runner (one job per core), as
// `npm start` runs it. Writes the `runner` section of bench/RESULTS.md (`npm run bench` runs it
// after bench/ci.ts; alone: `node bench/runner.ts`).
import fs from 'node:fs';
import { DURATION, TOKEN, benchServer, cpuSeconds, machineLine, percentile, round, sleep, writeSection } from './ci-server.ts';

const ROUNDS = Number(process.env.BENCH_RUNNER_ROUNDS ?? 20);
const bench = benchServer({ QUARRY_BUILTIN_RUNNER: '1' });
const { api, commit } = bench;

const ONE_JOB = 'first:\n  script: ["true"]\n';
const TWENTY_JOBS = ['stages: [one, two, three, four]', ...Array.from({ length: 20 }, (_, i) => `job${i}:\n  stage: ${['one', 'two', 'three', 'four'][i % 4]}\n  script: ["true"]`)].join('\n');
// Bursts of 200 lines ten times a second (as many as bash manages) for the measure's duration.
const CHATTY = `chatty:\n  script:\n    - 'end=$((SECONDS+${DURATION})); n=0; while [ $SECONDS -lt $end ]; do for i in $(seq 1 200); do n=$((n+1)); echo "line $n of a chatty job, with enough text to look like a real build log"; done; sleep 0.1; done'\n`;

/** The built-in runner's process: the server's child. */
function runnerPid(serverPid: number): number | null {
  const children = fs.readFileSync(`/proc/${serverPid}/task/${serverPid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return children.length ? Number(children[0]) : null;
}

async function pipelineDone(projectId: number, after: number): Promise<{ id: number; status: string }> {
  for (;;) {
    const latest = await bench.latestPipeline(projectId);
    if (latest && latest.id > after && ['success', 'failed', 'canceled'].includes(latest.status)) return latest;
    await sleep(20);
  }
}

/** Push → first job running: from the commit request sent to the job's `started_at`, one pipeline at a time. */
async function firstJobLatency(projectId: number) {
  await commit(projectId, '.gitlab-ci.yml', ONE_JOB, true);
  await pipelineDone(projectId, 0);
  const latencies: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const before = (await bench.latestPipeline(projectId))?.id ?? 0;
    // The runner is idle, its request held by the server, before each push.
    await sleep(300);
    const sent = Date.now();
    await commit(projectId, 'counter.txt', String(i), false);
    const done = await pipelineDone(projectId, before);
    const job = (await api('GET', `/api/v4/projects/${projectId}/pipelines/${done.id}/jobs`)).json[0];
    latencies.push(Date.parse(job.started_at) - sent);
  }
  return { p50: round(percentile(latencies, 50), 0), p99: round(percentile(latencies, 99), 0) };
}

/** A 20-job pipeline of `true` jobs, push to success, a few times. */
async function twentyJobs(projectId: number) {
  await commit(projectId, '.gitlab-ci.yml', TWENTY_JOBS, false);
  await pipelineDone(projectId, 0);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = (await bench.latestPipeline(projectId))?.id ?? 0;
    const t0 = performance.now();
    await commit(projectId, 'counter.txt', `twenty ${i}`, false);
    const done = await pipelineDone(projectId, before);
    if (done.status !== 'success') throw new Error(`the 20-job pipeline ended ${done.status}`);
    times.push(performance.now() - t0);
  }
  return { median: round(percentile(times, 50) / 1000, 2), best: round(Math.min(...times) / 1000, 2) };
}

/** One job writing lines as fast as bash's loop goes: the server's and the runner's CPU meanwhile. */
async function chattyLog(projectId: number, serverPid: number) {
  const before = (await bench.latestPipeline(projectId))?.id ?? 0;
  const runner = runnerPid(serverPid);
  const server0 = cpuSeconds(serverPid);
  const runner0 = runner ? cpuSeconds(runner) : 0;
  const t0 = performance.now();
  await commit(projectId, '.gitlab-ci.yml', CHATTY, false);
  const done = await pipelineDone(projectId, before);
  const seconds = (performance.now() - t0) / 1000;
  const job = (await api('GET', `/api/v4/projects/${projectId}/pipelines/${done.id}/jobs`)).json[0];
  const log = await fetch(`${bench.base}/api/v4/projects/${projectId}/jobs/${job.id}/trace`, { headers: { 'private-token': TOKEN } }).then((r) => r.text());
  const lines = (log.match(/^line \d+ of a chatty job/gm) ?? []).length;
  return {
    status: done.status,
    seconds: round(seconds),
    lines,
    bytes: Buffer.byteLength(log),
    serverCpuPercent: round(((cpuSeconds(serverPid) - server0) / seconds) * 100),
    runnerCpuPercent: runner ? round(((cpuSeconds(runner) - runner0) / seconds) * 100) : null,
  };
}

async function main(): Promise<string[]> {
  const started = new Date();
  const pid = await bench.start();
  const liveness = await bench.cannon('/-/liveness');
  const project = (await api('POST', '/api/v4/projects', { name: 'runner-bench', initialize_with_readme: true })).json;
  await commit(project.id, 'counter.txt', 'start', true);
  const first = await firstJobLatency(project.id);
  const twenty = await twentyJobs(project.id);
  const chatty = await chattyLog(project.id, pid);

  const lines = [
    '<!-- bench:runner -->',
    '## Latest run: the built-in runner (SQLite, `quarry serve` with its runner, one job per core)',
    '',
    machineLine(started),
    '',
    `Yardstick: GET /-/liveness ${liveness.rps.toLocaleString('en')} req/s (p99 ${liveness.p99} ms).`,
    '',
    '| Measure | value | target | |',
    '|---|--:|---|---|',
    `| Push (commits API) → first job running on the idle runner, ${ROUNDS} pushes, p50 / p99 | ${first.p50} / ${first.p99} ms | ≤ 1,000 ms | ${first.p99 <= 1000 ? 'met' : '**missed**'} |`,
    `| 20-job pipeline of \`true\` jobs (4 stages), push → success, median / best of 3 | ${twenty.median} / ${twenty.best} s | ≤ 10 s | ${twenty.median <= 10 ? 'met' : '**missed**'} |`,
    `| One job writing ${Math.round(chatty.lines / chatty.seconds).toLocaleString('en')} lines a second for ${DURATION} s: server CPU / runner CPU (its shell excluded) | ${chatty.serverCpuPercent} % / ${chatty.runnerCpuPercent ?? '?'} % of a core | — | |`,
    '',
    `The chatty job ended ${chatty.status} after ${chatty.seconds} s with ${chatty.lines.toLocaleString('en')} lines (${(chatty.bytes / 1024 ** 2).toFixed(1)} MiB) in its stored log.`,
    '<!-- /bench:runner -->',
  ];
  return lines;
}

await writeSection('runner', bench, main);
