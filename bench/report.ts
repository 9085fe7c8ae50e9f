// Writes bench/RESULTS.md: a fixed introduction and one "latest run" section per dialect. A run
// replaces the sections of the dialects it measured and keeps the others, so the file stays short.
import fs from 'node:fs';
import os from 'node:os';
import type { LoadResult } from './load.ts';
import { SCENARIOS, type ScenarioKey } from './scenarios.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DialectResult {
  dialect: DialectName;
  date: string;
  machine: string;
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  users: number;
  seedMs: number;
  startupMs: number[];
  idleRssMb: number;
  scenarios: Array<{ key: ScenarioKey; result: LoadResult; rssAfterMb: number }>;
}

export const TARGETS = { startupMs: 1000, idleRssMb: 150 };

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

function section(r: DialectResult): string {
  const targeted = r.dialect === 'sqlite';
  const lines = [
    `<!-- bench:${r.dialect} -->`,
    `## Latest run: ${TITLES[r.dialect]}`,
    '',
    `${r.date} · ${r.machine}`,
    '',
    `${int(r.users)} seeded users (seeded in ${int(r.seedMs)} ms) · ${r.connections} connections · ${r.warmupSeconds} s warm-up, then ${r.durationSeconds} s measured per scenario · server log level silent`,
    '',
    '| Scenario | req/s | p50 ms | p99 ms | non-2xx | errors | server RSS after (MB) | target | |',
    '|---|--:|--:|--:|--:|--:|--:|---|---|',
  ];
  for (const { key, result, rssAfterMb } of r.scenarios) {
    const s = SCENARIOS.find((x) => x.key === key)!;
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
    lines.push(
      `| ${s.label} | ${int(result.rps)} | ${ms(result.p50Ms)} | ${ms(result.p99Ms)} | ${int(result.non2xx)} | ${int(result.errors + result.timeouts)} | ${int(rssAfterMb)} | ${parts.join(', ') || '—'} | ${t ? verdict(ok) : ''} |`,
    );
  }
  const start = median(r.startupMs);
  lines.push(
    '',
    '| Process | value | target | |',
    '|---|--:|---|---|',
    `| start to first answered /-/readiness (median of ${r.startupMs.length}: ${r.startupMs.map(int).join(', ')} ms) | ${int(start)} ms | ${targeted ? `≤ ${int(TARGETS.startupMs)} ms` : '—'} | ${targeted ? verdict(start <= TARGETS.startupMs) : ''} |`,
    `| idle RSS after start | ${int(r.idleRssMb)} MB | ${targeted ? `≤ ${TARGETS.idleRssMb} MB` : '—'} | ${targeted ? verdict(r.idleRssMb <= TARGETS.idleRssMb) : ''} |`,
    `<!-- /bench:${r.dialect} -->`,
  );
  return lines.join('\n');
}

const INTRO = `# Benchmarks

\`npm run bench\` (bench/run.ts) measures, for SQLite and then PostgreSQL: a fresh database with
10,000 users; the server started as its own process; start-up time (spawn to the first 200 from
\`/-/readiness\`) and idle RSS; then autocannon, from a separate process, against each scenario,
with the server's RSS after each one. Options: \`BENCH_DURATION\` (seconds per scenario, default
10), \`BENCH_ONLY=sqlite|postgres\`, \`BENCH_CONNECTIONS\` (default 10), \`BENCH_PG_URL\` (an existing
database used to create and drop the benchmark's own, default postgres://postgres@127.0.0.1:5432/test).

Targets apply to SQLite. POST /users is slow by design: every request derives a scrypt password
hash (N = 16384), which the libuv thread pool runs at a few dozen per second per core.

Each run replaces the section of the dialect it measured.
`;

export function writeResults(file: string, results: DialectResult[]): void {
  const previous = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const sections = (['sqlite', 'postgres'] as const).map((d) => {
    const fresh = results.find((r) => r.dialect === d);
    if (fresh) return section(fresh);
    return new RegExp(`<!-- bench:${d} -->[\\s\\S]*?<!-- /bench:${d} -->`).exec(previous)?.[0] ?? null;
  });
  fs.writeFileSync(file, `${[INTRO, ...sections.filter((s) => s !== null)].join('\n')}\n`);
}
