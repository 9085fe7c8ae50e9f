// CI hot paths (issue 13): pipeline creation after a push with a 20-job configuration; the
// pipelines and jobs lists of a project with 100,000 pipelines; 100 idle runners long polling
// (the server's CPU while nothing happens, and how soon a new job reaches one of them); 200
// running jobs appending to their logs every second. One server process on SQLite, started as
// its own process; load from autocannon in another. Writes the `ci` section of bench/RESULTS.md
// (`npm run bench` runs it after the dialects; alone: `node bench/ci.ts`).
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DURATION, benchServer, cpuSeconds, machineLine, percentile, round, sleep, writeSection } from './ci-server.ts';

const PIPELINES = Number(process.env.BENCH_CI_PIPELINES ?? 100_000);
const bench = benchServer();
const { api, base, cannon, commit, dataDir } = bench;
const latestPipelineId = bench.latestPipeline;

const TWENTY_JOBS = ['stages: [one, two, three, four]', ...Array.from({ length: 20 }, (_, i) => `job${i}:\n  stage: ${['one', 'two', 'three', 'four'][i % 4]}\n  script: [echo ${i}]`)].join('\n');

/** Push → pipeline: from the commit request to the new pipeline's jobs pending, sequentially. */
async function pipelineCreation(projectId: number, rounds = 30) {
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < rounds; i++) {
    const before = (await latestPipelineId(projectId))?.id ?? 0;
    const t0 = performance.now();
    await commit(projectId, 'counter.txt', String(i), i === 0);
    for (;;) {
      const latest = await latestPipelineId(projectId);
      if (latest && latest.id > before && latest.status === 'pending') break;
      await sleep(2);
    }
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  return { rounds, p50: round(percentile(latencies, 50)), p99: round(percentile(latencies, 99)), pipelinesPerSecond: round(rounds / seconds) };
}

/** 100,000 pipelines (one job each) written straight into the stopped server's database. */
function seedPipelines(projectId: number, sha: string, userId: number) {
  const db = new DatabaseSync(path.join(dataDir, 'quarry.sqlite3'));
  const start = Number((db.prepare('select coalesce(max(iid), 0) as iid from ci_pipelines where project_id = ?').get(projectId) as { iid: number }).iid);
  const pipeline = db.prepare(
    `insert into ci_pipelines (project_id, iid, ref, sha, before_sha, tag, protected, source, status, user_id, created_at, updated_at, finished_at, started_at, duration)
     values (?, ?, 'main', ?, '0000000000000000000000000000000000000000', 0, 1, ?, ?, ?, ?, ?, ?, ?, 3)`,
  );
  const build = db.prepare(
    `insert into ci_builds (pipeline_id, project_id, type, name, stage, stage_idx, status, ref, tag, protected, "when", allow_failure, scheduling_type, options, yaml_variables, tag_list, interruptible, retried, user_id, created_at, updated_at, started_at, finished_at, queued_at)
     values (?, ?, 'build', 'test', 'test', 1, ?, 'main', 0, 1, 'on_success', 0, 'stage', '{"script":["x"]}', '[]', '[]', 0, 0, ?, ?, ?, ?, ?, ?)`,
  );
  const statuses = ['success', 'failed', 'canceled', 'success', 'success'];
  const sources = ['push', 'push', 'api', 'schedule', 'web'];
  const t0 = Date.parse('2025-01-01T00:00:00Z');
  db.exec('begin');
  for (let i = 1; i <= PIPELINES; i++) {
    const at = new Date(t0 + i * 60_000).toISOString();
    const status = statuses[i % statuses.length];
    const { lastInsertRowid } = pipeline.run(projectId, start + i, sha, sources[i % sources.length], status, userId, at, at, at, at);
    build.run(Number(lastInsertRowid), projectId, status, userId, at, at, at, at, at);
  }
  db.exec('commit');
  db.close();
}

/** Runners waiting for jobs: each asks again as soon as it is answered 204. */
function idleRunners(tokens: string[]) {
  let stopped = false;
  const abort = new AbortController();
  let firstJobAt: number | null = null;
  let handedOut = 0;
  const loops = tokens.map(async (token) => {
    while (!stopped) {
      const res = await fetch(`${base}/api/v4/jobs/request`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, last_update: '0' }), signal: abort.signal }).catch(() => null);
      if (res?.status === 201) {
        firstJobAt ??= performance.now();
        handedOut++;
        await res.text();
        return;
      }
      await res?.text();
      if (!res) await sleep(100);
    }
  });
  return {
    firstJobAt: () => firstJobAt,
    handedOut: () => handedOut,
    async stop() {
      stopped = true;
      // Requests still held would take the next jobs: hang up on them.
      abort.abort();
      await Promise.all(loops);
    },
  };
}

async function main(): Promise<string[]> {
  const started = new Date();
  let pid = await bench.start();
  const project = (await api('POST', '/api/v4/projects', { name: 'ci-bench', initialize_with_readme: true })).json;
  const runnersToken = (await api('GET', `/api/v4/projects/${project.id}`)).json.runners_token as string;
  const liveness = await cannon('/-/liveness');

  await commit(project.id, '.gitlab-ci.yml', TWENTY_JOBS, true);
  const creation = await pipelineCreation(project.id);

  const sha = (await api('GET', `/api/v4/projects/${project.id}/repository/commits/main`)).json.id as string;
  await bench.stop();
  const seedStart = performance.now();
  seedPipelines(project.id, sha, 1);
  const seededMs = Math.round(performance.now() - seedStart);
  pid = await bench.start();
  const pipelinesList = await cannon(`/api/v4/projects/${project.id}/pipelines?per_page=20`);
  const jobsList = await cannon(`/api/v4/projects/${project.id}/jobs?per_page=20`);
  const jobsScoped = await cannon(`/api/v4/projects/${project.id}/jobs?per_page=20&scope[]=failed&scope[]=canceled`);
  const pipelinesFiltered = await cannon(`/api/v4/projects/${project.id}/pipelines?per_page=20&status=failed&source=push`);

  // 100 idle runners: CPU while nothing happens, then a new pipeline's first job handed out.
  const live = (await api('GET', `/api/v4/projects/${project.id}/pipelines?scope=pending&per_page=100`)).json as { id: number }[];
  for (const p of live) await api('POST', `/api/v4/projects/${project.id}/pipelines/${p.id}/cancel`);
  const runnerTokens: string[] = [];
  for (let i = 0; i < 100; i++) runnerTokens.push((await api('POST', '/api/v4/runners', { token: runnersToken, description: `r${i}` }, {})).json.token);
  const waiting = idleRunners(runnerTokens);
  await sleep(2000);
  const cpu0 = cpuSeconds(pid);
  await sleep(DURATION * 1000);
  const idleCpuPercent = round(((cpuSeconds(pid) - cpu0) / DURATION) * 100);
  if (waiting.handedOut() > 0) throw new Error('the idle runners found jobs: the measure of idleness is void');
  const asked = performance.now();
  const created = await api('POST', `/api/v4/projects/${project.id}/pipeline`, { ref: 'main' });
  const answered = performance.now();
  for (let i = 0; i < 500 && waiting.firstJobAt() === null; i++) await sleep(2);
  const handedOutMs = waiting.firstJobAt() === null ? null : round((waiting.firstJobAt() as number) - asked);
  // The jobs are pending once the API's transaction commits, before its answer is written.
  const afterAnswerMs = waiting.firstJobAt() === null ? null : round((waiting.firstJobAt() as number) - answered);
  await waiting.stop();

  // 200 running jobs appending 1 KiB to their logs every second.
  await commit(project.id, '.gitlab-ci.yml', 'trace:\n  script: [x]\n  parallel: 200\n', false);
  for (let i = 0; i < 100 && (await latestPipelineId(project.id))?.status !== 'pending'; i++) await sleep(20);
  const jobs: { id: number; token: string; length: number }[] = [];
  for (let attempts = 0; jobs.length < 200 && attempts < 1000; attempts++) {
    const res = await api('POST', '/api/v4/jobs/request', { token: runnerTokens[0] }, {});
    if (res.status === 503) continue; // shed under load: ask again
    if (res.status !== 201) break;
    jobs.push({ id: res.json.id, token: res.json.token, length: 0 });
  }
  const chunk = Buffer.alloc(1024, 'x');
  const patchMs: number[] = [];
  let patchErrors = 0;
  const cpu1 = cpuSeconds(pid);
  const until = performance.now() + DURATION * 1000;
  await Promise.all(
    jobs.map(async (job, i) => {
      await sleep((i * 1000) / jobs.length);
      while (performance.now() < until) {
        const t0 = performance.now();
        const res = await fetch(`${base}/api/v4/jobs/${job.id}/trace`, {
          method: 'PATCH',
          headers: { 'job-token': job.token, 'content-range': `${job.length}-${job.length + chunk.length - 1}`, 'content-type': 'text/plain' },
          body: chunk,
        }).catch(() => null);
        if (res?.status === 202) job.length += chunk.length;
        else patchErrors++;
        await res?.text();
        patchMs.push(performance.now() - t0);
        await sleep(Math.max(0, 1000 - (performance.now() - t0)));
      }
    }),
  );
  const traceCpuPercent = round(((cpuSeconds(pid) - cpu1) / DURATION) * 100);
  await bench.stop();

  const lines = [
    '<!-- bench:ci -->',
    '## Latest run: CI (SQLite, one server process)',
    '',
    machineLine(started),
    '',
    `Yardstick: GET /-/liveness ${liveness.rps.toLocaleString('en')} req/s (p99 ${liveness.p99} ms).`,
    '',
    '| Measure | value | target | |',
    '|---|--:|---|---|',
    `| Push → pipeline of 20 jobs pending (commits API, ${creation.rounds} in a row), p50 / p99 | ${creation.p50} / ${creation.p99} ms | — | |`,
    `| Pipelines created per second that way | ${creation.pipelinesPerSecond} | — | |`,
    `| GET /projects/:id/pipelines?per_page=20 (${PIPELINES.toLocaleString('en')} pipelines) | ${pipelinesList.rps.toLocaleString('en')} req/s, p99 ${pipelinesList.p99} ms | ≥ 1,000 req/s, p99 ≤ 30 ms | ${pipelinesList.rps >= 1000 && pipelinesList.p99 <= 30 ? 'met' : '**missed**'} |`,
    `| GET /projects/:id/pipelines?status=failed&source=push (two filters) | ${pipelinesFiltered.rps.toLocaleString('en')} req/s, p99 ${pipelinesFiltered.p99} ms | ≥ 1,000 req/s, p99 ≤ 30 ms | ${pipelinesFiltered.rps >= 1000 && pipelinesFiltered.p99 <= 30 ? 'met' : '**missed**'} |`,
    `| GET /projects/:id/jobs?per_page=20 (${PIPELINES.toLocaleString('en')} jobs) | ${jobsList.rps.toLocaleString('en')} req/s, p99 ${jobsList.p99} ms | ≥ 1,000 req/s, p99 ≤ 30 ms | ${jobsList.rps >= 1000 && jobsList.p99 <= 30 ? 'met' : '**missed**'} |`,
    `| GET /projects/:id/jobs?scope[]=failed&scope[]=canceled (two statuses) | ${jobsScoped.rps.toLocaleString('en')} req/s, p99 ${jobsScoped.p99} ms | — | |`,
    `| Server CPU with 100 runners long polling, nothing to do | ${idleCpuPercent} % of a core | ≤ 5 % | ${idleCpuPercent <= 5 ? 'met' : '**missed**'} |`,
    `| A new pipeline's first job reaching one of them: from the POST /pipeline sent / from its answer | ${handedOutMs ?? 'never'} / ${afterAnswerMs ?? 'never'} ms | ≤ 100 ms | ${afterAnswerMs !== null && afterAnswerMs <= 100 ? 'met' : '**missed**'} |`,
    `| ${jobs.length} running jobs appending 1 KiB every second: PATCH p50 / p99, failures | ${round(percentile(patchMs, 50))} / ${round(percentile(patchMs, 99))} ms, ${patchErrors} | — | |`,
    `| Server CPU meanwhile | ${traceCpuPercent} % of a core | — | |`,
    '',
    `${PIPELINES.toLocaleString('en')} pipelines seeded straight into the database in ${seededMs.toLocaleString('en')} ms. The POST /pipeline that woke the runners answered ${created.status} in ${round(created.ms)} ms.`,
    '<!-- /bench:ci -->',
  ];
  return lines;
}

await writeSection('ci', bench, main);
