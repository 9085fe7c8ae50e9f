// Writes bench/RESULTS.md: a fixed introduction and one "latest run" section per dialect. A run
// replaces the sections of the dialects it measured and keeps the others, so the file stays short.
import fs from 'node:fs';
import os from 'node:os';
import type { LoadResult } from './load.ts';
import type { ExplainedQuery } from './plans.ts';
import { FIXTURE, type GitTimings, medianMs } from './repository.ts';
import { SCENARIOS, type ScenarioKey } from './scenarios.ts';
import type { SeedCounts } from './seed.ts';

export type DialectName = 'sqlite' | 'postgres';

/** A measured scenario, or why it was not measured. */
export type ScenarioOutcome = { key: ScenarioKey } & ({ result: LoadResult; rssAfterMb: number } | { unavailable: string } | { failed: string });

/** The member's list measured at two sizes of the projects table. */
export interface ScalePoint {
  counts: SeedCounts;
  outcome: ScenarioOutcome;
  /** In-process mean times of the list's queries (first page, count, keyset page). */
  queries: ExplainedQuery[];
}

export interface Scaling {
  durationSeconds: number;
  points: ScalePoint[];
}

export interface DialectResult {
  dialect: DialectName;
  date: string;
  machine: string;
  /** The machine's 1-minute load average just before the run: other work on it lowers every figure. */
  loadAverage: number;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  counts: SeedCounts;
  seedMs: number;
  startupMs: number[];
  idleRssMb: number;
  scenarios: ScenarioOutcome[];
  /** The plans of the member's list, or why they could not be captured. */
  plans: ExplainedQuery[] | string;
  scaling?: Scaling;
  /** Clone and push of the fixture repository against git http-backend, or why not measured. */
  git?: GitTimings | string;
  /** The server's processes while the repository reads run at many connections, or why not measured. */
  burst?: ProcessBurst | string;
  /** The scenarios again, served by several worker processes. */
  workers?: WorkersResult;
}

export interface ProcessBurst {
  connections: number;
  seconds: number;
  scenarios: number;
  /** The most child processes of the server seen at once. */
  mostProcesses: number;
  /** Scenarios that had a non-2xx answer, an error or a time-out. */
  failed: string[];
}

export interface WorkersResult {
  count: number;
  startupMs: number;
  /** The supervisor and its workers together. */
  idleRssMb: number;
  scenarios: ScenarioOutcome[];
}

/** maxProcesses: the object readers' cap (16) and the history walks' (4). */
export const TARGETS = { startupMs: 1000, idleRssMb: 150, gitRatio: 1.2, maxProcesses: 20 };

export function machineDescription(): string {
  let cpu = 'unknown CPU';
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    cpu = os.cpus()[0]?.model ?? cpu;
  }
  const ramGb = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${cpu}, ${os.availableParallelism()} cores, ${ramGb} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

const TITLES: Record<DialectName, string> = { sqlite: 'SQLite (embedded, default)', postgres: 'PostgreSQL' };

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : int(n));
const verdict = (ok: boolean) => (ok ? 'met' : '**missed**');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function describeData(c: SeedCounts): string {
  const v = c.projectsByVisibility;
  return (
    `${int(c.users)} users, each with a personal namespace · ${int(c.groups)} groups in three levels · ` +
    `${int(c.projects)} projects (${int(v.private)} private, ${int(v.internal)} internal, ${int(v.public)} public) · ` +
    `${int(c.groupMemberships)} group and ${int(c.projectMemberships)} project memberships · ${int(c.projectAuthorizations)} project authorizations · ` +
    `the member: ${int(c.memberGroups)} groups, authorized on ${int(c.memberAuthorized)} projects, may see ${int(c.memberVisible)}`
  );
}

/** `all`: the run's other outcomes, for a target relative to another scenario. */
function scenarioRow(o: ScenarioOutcome, targeted: boolean, all: readonly ScenarioOutcome[]): string {
  const s = SCENARIOS.find((x) => x.key === o.key)!;
  if ('unavailable' in o) return `| ${s.label} | not available: ${cell(o.unavailable)} | | | | | | | |`;
  if ('failed' in o) return `| ${s.label} | **failed**: ${cell(o.failed)} | | | | | | | |`;
  const { result, rssAfterMb } = o;
  const t = targeted ? s.target : undefined;
  const parts: string[] = [];
  let ok = true;
  if (t?.rps !== undefined) {
    parts.push(`≥ ${int(t.rps)} req/s`);
    ok &&= result.rps >= t.rps;
  }
  if (t?.p99Ms !== undefined) {
    parts.push(`p99 ≤ ${t.p99Ms} ms`);
    ok &&= result.p99Ms <= t.p99Ms;
  }
  const relative = t?.orShareOf;
  if (relative !== undefined) {
    const other = all.find((x) => x.key === relative.key);
    const otherRps = other && 'result' in other ? other.result.rps : null;
    const share = otherRps ? result.rps / otherRps : null;
    parts.push(`or ≥ ×${relative.share} of ${SCENARIOS.find((x) => x.key === relative.key)?.label.split(' (')[0]} (×${share?.toFixed(2) ?? '?'})`);
    ok ||= share !== null && share >= relative.share;
  }
  return `| ${s.label} | ${int(result.rps)} | ${ms(result.p50Ms)} | ${ms(result.p99Ms)} | ${int(result.non2xx)} | ${int(result.errors + result.timeouts)} | ${int(rssAfterMb)} | ${parts.join(', ') || '—'} | ${t ? verdict(ok) : ''} |`;
}

/** Text inside a table cell: no pipes or line breaks. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

const fence = (lines: string[], lang = '') => ['```' + lang, ...lines, '```'];

function plansSection(r: DialectResult): string[] {
  const lines = [
    '',
    `### Query plan: GET /api/v4/projects?per_page=20 as the member (${r.dialect === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN ANALYZE'})`,
    '',
    'The SQL the projects finder builds for that request (visibleProjects + filterProjects, ordered and cut as the route does), compiled by Kysely; time of one execution in-process (median over batches).',
  ];
  if (typeof r.plans === 'string') return [...lines, '', `Not captured: ${r.plans}`];
  for (const q of r.plans) {
    lines.push(
      '',
      `**${q.title}** · ${q.meanMs.toFixed(3)} ms · ${int(q.rows)} row${q.rows === 1 ? '' : 's'}`,
      '',
      ...fence([q.sql, `-- parameters: ${JSON.stringify(q.parameters)}`], 'sql'),
      ...fence(q.plan),
    );
  }
  return lines;
}

/** Quarry's clone and push times against plain git http-backend, measured alternately in this run. */
function gitSection(git: GitTimings | string, targeted: boolean): string[] {
  const lines = [
    '',
    `### git clone and git push: Quarry against plain \`git http-backend\``,
    '',
    `A repository of ${int(FIXTURE.commits)} commits, ${int(FIXTURE.branches)} branches and ${int(FIXTURE.tags)} tags (built by git fast-import), ` +
      'pushed whole to a new empty repository and cloned back (`git clone --bare`), by the git CLI over HTTP, alternately against Quarry ' +
      '(token authentication, push checks, events) and against git http-backend behind a minimal Node HTTP server in the benchmark process; median of the rounds.',
    '',
  ];
  if (typeof git === 'string') return [...lines, `Not measured: ${git}`];
  lines.push('| Operation | Quarry ms (rounds) | git http-backend ms (rounds) | ratio | target | |', '|---|--:|--:|--:|---|---|');
  const row = (label: string, quarry: number[], backend: number[]) => {
    const ratio = medianMs(quarry) / medianMs(backend);
    const rounds = (xs: number[]) => `${int(medianMs(xs))} (${xs.map(int).join(', ')})`;
    const target = targeted ? `≤ ×${TARGETS.gitRatio}` : '—';
    return `| ${label} | ${rounds(quarry)} | ${rounds(backend)} | ×${ratio.toFixed(2)} | ${target} | ${targeted ? verdict(ratio <= TARGETS.gitRatio) : ''} |`;
  };
  lines.push(row('git push (every branch and tag)', git.quarryPushMs, git.backendPushMs), row('git clone', git.quarryCloneMs, git.backendCloneMs));
  return lines;
}

const byTitle = (queries: ExplainedQuery[], prefix: string) => queries.find((q) => q.title.startsWith(prefix));

/** The two sizes side by side, and what the change says about the list's cost. */
function scalingSection(scaling: Scaling): string[] {
  const lines = [
    '',
    `### Does the member's list cost depend on the number of projects? (${scaling.durationSeconds} s per size)`,
    '',
    `More projects are added in personal namespaces of users without memberships; the member's memberships and authorizations stay the same.`,
    '',
    '| projects in total | visible to the member | req/s | p50 ms | p99 ms | first page query ms | count query ms | keyset page query ms |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const p of scaling.points) {
    const q = (prefix: string) => byTitle(p.queries, prefix)?.meanMs.toFixed(3) ?? '—';
    const o = p.outcome;
    const load = 'result' in o ? `${int(o.result.rps)} | ${ms(o.result.p50Ms)} | ${ms(o.result.p99Ms)}` : `${'unavailable' in o ? 'not available' : 'failed'} | | `;
    lines.push(`| ${int(p.counts.projects)} | ${int(p.counts.memberVisible)} | ${load} | ${q('first page')} | ${q('total')} | ${q('keyset')} |`);
  }
  const [a, b] = scaling.points;
  if (a && b && 'result' in a.outcome && 'result' in b.outcome) {
    const ratio = (x: number, y: number) => `×${(y / x).toFixed(2)}`;
    const t = (p: ScalePoint, prefix: string) => byTitle(p.queries, prefix)?.meanMs ?? Number.NaN;
    const names: Record<string, string> = { total: 'count (X-Total)', 'first page': 'first page', keyset: 'keyset page' };
    const growth = Object.keys(names)
      .map((prefix) => ({ prefix, from: t(a, prefix), to: t(b, prefix) }))
      .filter((g) => Number.isFinite(g.from) && Number.isFinite(g.to))
      .sort((x, y) => y.to - y.from - (x.to - x.from));
    const slower = b.outcome.result.rps < 0.8 * a.outcome.result.rps;
    const most = growth[0];
    lines.push(
      '',
      `From ${int(a.counts.projects)} to ${int(b.counts.projects)} projects (${int(a.counts.memberVisible)} to ${int(b.counts.memberVisible)} visible to the member), ` +
        `throughput changed ${ratio(a.outcome.result.rps, b.outcome.result.rps)}` +
        growth.map((g) => `, the ${names[g.prefix]} query ${ratio(g.from, g.to)}`).join('') +
        ': ' +
        (slower
          ? `the cost of the list depends on the total number of projects${most ? `; the ${names[most.prefix]} query grew the most, from ${most.from.toFixed(2)} to ${most.to.toFixed(2)} ms per request` : ''}.`
          : 'the cost of the list does not depend materially on the total number of projects.'),
    );
  }
  return lines;
}

function section(r: DialectResult): string {
  const targeted = r.dialect === 'sqlite';
  const lines = [
    `<!-- bench:${r.dialect} -->`,
    `## Latest run: ${TITLES[r.dialect]}`,
    '',
    `${r.date} · ${r.machine} · load average ${r.loadAverage.toFixed(2)} before the run`,
    '',
    `${describeData(r.counts)} · seeded in ${int(r.seedMs)} ms`,
    '',
    `${r.connections} connections · ${r.warmupSeconds} s warm-up, then ${r.durationSeconds} s measured per scenario · server log level silent`,
    '',
    `One server process (QUARRY_WORKERS=1, the default):`,
    '',
    ...SCENARIO_HEADER,
    ...r.scenarios.map((o) => scenarioRow(o, targeted, r.scenarios)),
  ];
  const start = median(r.startupMs);
  lines.push(
    '',
    '| Process | value | target | |',
    '|---|--:|---|---|',
    `| start to first answered /-/readiness (median of ${r.startupMs.length}: ${r.startupMs.map(int).join(', ')} ms) | ${int(start)} ms | ${targeted ? `≤ ${int(TARGETS.startupMs)} ms` : '—'} | ${targeted ? verdict(start <= TARGETS.startupMs) : ''} |`,
    `| idle RSS after start | ${int(r.idleRssMb)} MB | ${targeted ? `≤ ${TARGETS.idleRssMb} MB` : '—'} | ${targeted ? verdict(r.idleRssMb <= TARGETS.idleRssMb) : ''} |`,
    ...(r.burst ? [burstRow(r.burst, targeted)] : []),
    ...(r.workers ? workersSection(r.workers, targeted) : []),
    ...plansSection(r),
    ...(r.git ? gitSection(r.git, targeted) : []),
    ...(r.scaling ? scalingSection(r.scaling) : []),
    `<!-- /bench:${r.dialect} -->`,
  );
  return lines.join('\n');
}

function burstRow(b: ProcessBurst | string, targeted: boolean): string {
  if (typeof b === 'string') return `| most processes of the server during the repository reads | not measured: ${cell(b)} | | |`;
  const label = `most processes of the server at once, its ${b.scenarios} repository read scenarios driven ${b.seconds} s each at ${b.connections} connections${b.failed.length > 0 ? ` (answers not all 2xx: ${b.failed.join(', ')})` : ', every answer 2xx'}`;
  const ok = b.mostProcesses <= TARGETS.maxProcesses && b.failed.length === 0;
  return `| ${label} | ${b.mostProcesses} | ${targeted ? `≤ ${TARGETS.maxProcesses}` : '—'} | ${targeted ? verdict(ok) : ''} |`;
}

const SCENARIO_HEADER = ['| Scenario | req/s | p50 ms | p99 ms | non-2xx | errors | server RSS after (MB) | target | |', '|---|--:|--:|--:|--:|--:|--:|---|---|'];

function workersSection(w: WorkersResult, targeted: boolean): string[] {
  return [
    '',
    `### The same scenarios with QUARRY_WORKERS=${w.count}`,
    '',
    `A supervising process and ${w.count} server processes sharing the port and the database; RSS is theirs together. ` +
      `Started in ${int(w.startupMs)} ms (to the first answered /-/readiness); ${int(w.idleRssMb)} MB RSS idle.`,
    '',
    ...SCENARIO_HEADER,
    ...w.scenarios.map((o) => scenarioRow(o, targeted, w.scenarios)),
  ];
}

const INTRO = `# Benchmarks

\`npm run bench\` (bench/run.ts) measures, for SQLite and then PostgreSQL, a fresh database seeded in
batched inserts (bench/seed.ts): 10,000 users with their personal namespaces; 1,000 public groups
(100 top-level, each with 6 subgroups and 3 more under the first of them); 10,000 projects spread
over the groups (about 60 % private, 20 % internal, 20 % public, created over four years); 5,000
users in one to four groups each and 2,000 project memberships; a regular user, "the member",
directly in 50 groups (5 whole hierarchies and 45 single subgroups); and the project
authorizations of all of them, computed by the server's own refreshAuthorizations. Then the server
is started as its own process; start-up time (spawn to the first 200 from \`/-/readiness\`) and idle
RSS are measured; then autocannon, from a separate process, drives each scenario, with the server's
RSS after each one. A scenario whose route does not exist yet is listed as not available. The plan
of the member's GET /projects is captured from the SQL the projects finder builds, and, on SQLite,
the member's list is measured again after doubling the projects. A repository of 5,000 commits,
1,000 branches and 1,000 tags, whose tree holds 500 files in 50 directories (bench/repository.ts),
is pushed to new projects and cloned back with the git CLI, alternately against Quarry and against
plain \`git http-backend\` (bench/git-backend.ts), and the last project pushed to serves the
repository scenarios (branches, tags, files, trees, commits). The repository reads are then driven
again at 100 connections while the server's processes are counted. Then the server is started again
with \`QUARRY_WORKERS\` set to the number of cores, and every scenario but POST /users is measured
again against the same data.

Options: \`BENCH_DURATION\` (seconds per scenario, default 10), \`BENCH_SCALE_DURATION\` (seconds per
size for the doubling, default 5), \`BENCH_ONLY=sqlite|postgres\`, \`BENCH_CONNECTIONS\` (default 10),
\`BENCH_WORKERS\` (the worker count of the second pass, default the number of cores; 1 skips it),
\`BENCH_PG_URL\` (an existing database used to create and drop the benchmark's own, default
postgres://postgres@127.0.0.1:5432/test). \`node bench/seed-check.ts sqlite|postgres\` seeds alone
and checks the rows, and the authorizations against an independent computation.

Targets apply to SQLite. POST /users is slow by design: every request derives a scrypt password
hash (N = 16384), which the libuv thread pool runs at a few dozen per second per core.

The figures depend on the host far more than on the run: the same code measured GET /users/:id at
13,228 req/s on one AMD EPYC host, about 3,400 on an Intel Xeon host and about 3,600 on another
AMD EPYC host. The first line of each run, GET /-/liveness (no database), is the yardstick:
compare figures within one run.

Then bench/ci.ts (also alone: \`node bench/ci.ts\`) measures the CI hot paths on SQLite: a push
to a pipeline of 20 jobs, the pipelines and jobs lists of a project with 100,000 pipelines
(\`BENCH_CI_PIPELINES\`), 100 runners long polling while idle and how soon a new job reaches them,
and 200 running jobs appending to their logs every second.

Each run replaces the sections it measured and keeps the rest of this file.
`;

/**
 * Replaces the section `<!-- bench:NAME -->…<!-- /bench:NAME -->` of the results file, or adds it
 * at the end; everything else in the file (other runs, notes written by hand) stays.
 */
export function replaceSection(file: string, name: string, content: string): void {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : `${INTRO}\n`;
  const block = new RegExp(`<!-- bench:${name} -->[\\s\\S]*?<!-- /bench:${name} -->`);
  const next = block.test(previous) ? previous.replace(block, () => content) : `${previous.trimEnd()}\n\n${content}\n`;
  fs.writeFileSync(file, next);
}

export function writeResults(file: string, results: DialectResult[]): void {
  // The introduction is rewritten in place: it is whatever comes before the first section.
  if (fs.existsSync(file)) {
    const previous = fs.readFileSync(file, 'utf8');
    const first = previous.indexOf('<!-- bench:');
    if (first >= 0) fs.writeFileSync(file, `${INTRO}\n${previous.slice(first)}`);
  }
  for (const r of results) replaceSection(file, r.dialect, section(r));
}
