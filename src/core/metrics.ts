// The process's metrics, in the Prometheus text format (prom-client), served at /-/metrics by the
// metrics module: HTTP requests by route pattern, database queries, git processes and object
// readers, background jobs and periodic tasks, and prom-client's default process and Node
// metrics. Labels take few values: a route's pattern (never the URL), a statement's kind (never
// its SQL), a git subcommand from a fixed list, a job kind or task name from the code.
// Recording is a few additions per event; what costs more (the queue's counts by kind and state,
// read from the database) is computed only when scraped. The two that every request records
// (its own figures, and each of its queries) use SeriesHistogram below: measured on
// GET /projects/:id, prom-client's own label handling (a hash of the labels per observation)
// and Kysely's `log` hook (three more awaits per query) cost the request about 10 %.
import { BlockList, isIPv4 } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LogEvent } from 'kysely';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { StatementKind, StatementTimer } from '../db/sqlite-adapter.ts';
import { observeGit } from '../git/observer.ts';
import { readers } from '../git/reader-pool.ts';

/** Every metric of this process. */
export const registry = new Registry();

// Few buckets: each is a counter per label set, and each observation looks for its bucket.
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];
const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1];
const PROCESS_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30];
const JOB_BUCKETS = [0.01, 0.1, 0.5, 1, 5, 30, 120, 600];
const LATENCY_BUCKETS = [0.1, 0.5, 1, 5, 30, 120, 600, 3600];

const registers = [registry];

/** One label set of a SeriesHistogram: observing is a bucket search and three additions. */
export class Series {
  readonly labels: Readonly<Record<string, string>>;
  private readonly bounds: readonly number[];
  /** Observations per bucket (the last: above every bound), not cumulative. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(labels: Record<string, string>, bounds: readonly number[]) {
    this.labels = labels;
    this.bounds = bounds;
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    this.counts[i] += 1;
    this.sum += value;
    this.count += 1;
  }
}

interface MetricValue {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A histogram whose label sets are looked up once (series()) and then observed directly, read by
 * prom-client's registry through get() like its own metrics (and so summed across cluster
 * workers alike). `counter` names a counter of the same observations, for free.
 */
class SeriesHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly labelNames: readonly string[];
  private readonly bounds: readonly number[];
  private readonly all = new Map<string, Series>();

  constructor(options: { name: string; help: string; labelNames: readonly string[]; buckets: readonly number[]; counter?: { name: string; help: string } }) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.bounds = options.buckets;
    registry.registerMetric(this as never);
    const { counter } = options;
    if (counter) {
      const values = () => [...this.all.values()].map((s): MetricValue => ({ labels: { ...s.labels }, value: s.count }));
      registry.registerMetric({ ...counter, type: 'counter', aggregator: 'sum', get: () => ({ ...counter, type: 'counter', aggregator: 'sum', values: values() }), reset: () => this.reset() } as never);
    }
  }

  /** The series of these label values (in labelNames' order), made on first use. */
  series(...values: string[]): Series {
    const key = values.join('\n');
    let found = this.all.get(key);
    if (found === undefined) {
      found = new Series(Object.fromEntries(this.labelNames.map((name, i) => [name, values[i]])), this.bounds);
      this.all.set(key, found);
    }
    return found;
  }

  get() {
    const values: MetricValue[] = [];
    for (const s of this.all.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += s.counts[i];
        values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: bound }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: { ...s.labels }, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: { ...s.labels }, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {
    this.all.clear();
  }
}

// ---- HTTP ---------------------------------------------------------------------------------------

const httpRequests = new SeriesHistogram({
  name: 'quarry_http_request_duration_seconds',
  help: 'Time from receiving a request to the end of its answer, by route pattern, method and status',
  labelNames: ['route', 'method', 'status'],
  buckets: REQUEST_BUCKETS,
  counter: { name: 'quarry_http_requests_total', help: 'HTTP requests answered, by route pattern (`unknown` when no route matched), method and status' },
});

/** The series of each route, method and status seen, by a key made of the three. */
const requestSeries = new Map<string, Series>();

function recordRequest(req: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const route = req.routeOptions.url ?? 'unknown';
  const status = reply.statusCode;
  const key = `${req.method} ${status} ${route}`;
  let series = requestSeries.get(key);
  if (series === undefined) {
    series = httpRequests.series(route, req.method, String(status));
    requestSeries.set(key, series);
  }
  series.observe(reply.elapsedTime / 1000);
  done();
}

let defaultsCollected = false;

/** Counts every answered request of the application; turns on the default process metrics once per process. */
export function installHttpMetrics(app: FastifyInstance): void {
  if (!defaultsCollected) {
    defaultsCollected = true;
    collectDefaultMetrics({ register: registry });
  }
  app.addHook('onResponse', recordRequest);
}

// ---- Database -----------------------------------------------------------------------------------

const queryDuration = new SeriesHistogram({
  name: 'quarry_db_query_duration_seconds',
  help: 'Time of the database queries that succeeded, by dialect and statement kind',
  labelNames: ['dialect', 'statement'],
  buckets: QUERY_BUCKETS,
});
const queryErrors = new Counter({
  name: 'quarry_db_query_errors_total',
  help: 'Database queries that failed, by dialect and statement kind',
  labelNames: ['dialect', 'statement'] as const,
  registers,
});

/** What the SQLite adapter times each statement with (db/sqlite-adapter.ts), by statement kind. */
export function sqliteStatementTimer(statement: StatementKind): StatementTimer {
  const series = queryDuration.series('sqlite', statement);
  return { succeeded: (seconds) => series.observe(seconds), failed: () => queryErrors.inc({ dialect: 'sqlite', statement }) };
}

/** Kysely's node kinds of the statements told apart; anything else (raw SQL, DDL, transactions) is `other`. */
const STATEMENTS: Record<string, StatementKind> = {
  SelectQueryNode: 'select',
  InsertQueryNode: 'insert',
  UpdateQueryNode: 'update',
  DeleteQueryNode: 'delete',
};

/**
 * Kysely's `log` option, for PostgreSQL: the time of each query, by statement kind (never its
 * text). Its awaits cost little beside a round trip to the server; SQLite's queries, done in
 * microseconds within the process, are timed by its adapter instead.
 */
export function queryLogger(dialect: string): (event: LogEvent) => void {
  const observers = new Map<string, Series>();
  for (const statement of [...Object.values(STATEMENTS), 'other']) observers.set(statement, queryDuration.series(dialect, statement));
  return (event) => {
    const statement = STATEMENTS[event.query.query.kind] ?? 'other';
    if (event.level === 'query') observers.get(statement)?.observe(event.queryDurationMillis / 1000);
    else queryErrors.inc({ dialect, statement });
  };
}

// ---- Git ----------------------------------------------------------------------------------------

const gitProcesses = new Counter({
  name: 'quarry_git_processes_total',
  help: 'git processes started, by subcommand (object readers included)',
  labelNames: ['subcommand'] as const,
  registers,
});
const gitDuration = new Histogram({
  name: 'quarry_git_process_duration_seconds',
  help: 'Run time of the git processes run to completion (not the long-lived object readers), by subcommand',
  labelNames: ['subcommand'] as const,
  buckets: PROCESS_BUCKETS,
  registers,
});
const gitFailures = new Counter({
  name: 'quarry_git_process_failures_total',
  help: 'git processes that failed, by subcommand and kind (failed: an exit status not accepted; timeout; output_limit; killed)',
  labelNames: ['subcommand', 'kind'] as const,
  registers,
});
new Gauge({
  name: 'quarry_git_cat_file_readers',
  help: 'Long-lived git cat-file object readers alive',
  registers,
  aggregator: 'sum',
  collect() {
    this.set(readers.processes.length);
  },
});
const readerRestarts = new Counter({
  name: 'quarry_git_cat_file_reader_restarts_total',
  help: 'Object readers lost while they owed answers (timeout: a request outlasted the time limit; exited: it died or was replaced), whose requests went to a fresh reader',
  labelNames: ['reason'] as const,
  registers,
});

observeGit({
  started: (subcommand) => gitProcesses.inc({ subcommand }),
  ended(subcommand, seconds, failure) {
    gitDuration.observe({ subcommand }, seconds);
    if (failure !== null) gitFailures.inc({ subcommand, kind: failure });
  },
  readerRestarted: (reason) => readerRestarts.inc({ reason }),
});

// ---- Background jobs and periodic tasks ---------------------------------------------------------

const jobsEnqueued = new Counter({
  name: 'quarry_background_jobs_enqueued_total',
  help: 'Background jobs enqueued by this process, by kind (a job enqueued in a transaction that rolled back counts too)',
  labelNames: ['kind'] as const,
  registers,
});
const jobsRunning = new Gauge({
  name: 'quarry_background_jobs_running',
  help: 'Background jobs this process is running, by kind',
  labelNames: ['kind'] as const,
  registers,
});
const jobRuns = new Counter({
  name: 'quarry_background_job_runs_total',
  help: 'Runs of background jobs, by kind and outcome (completed; retried: failed, to be run again; failed: failed for good)',
  labelNames: ['kind', 'outcome'] as const,
  registers,
});
const jobDuration = new Histogram({
  name: 'quarry_background_job_duration_seconds',
  help: 'Run time of background jobs, by kind',
  labelNames: ['kind'] as const,
  buckets: JOB_BUCKETS,
  registers,
});
const jobLatency = new Histogram({
  name: 'quarry_background_job_latency_seconds',
  help: 'Time from when a background job was due (its run_at) to its claim by a worker, by kind',
  labelNames: ['kind'] as const,
  buckets: LATENCY_BUCKETS,
  registers,
});

export type JobRunOutcome = 'completed' | 'retried' | 'failed';

export const jobMetrics = {
  enqueued(kind: string): void {
    jobsEnqueued.inc({ kind });
  },
  /** A job was claimed `latencySeconds` after it was due, and starts. */
  started(kind: string, latencySeconds: number): void {
    jobLatency.observe({ kind }, Math.max(0, latencySeconds));
    jobsRunning.inc({ kind });
  },
  finished(kind: string, seconds: number, outcome: JobRunOutcome): void {
    jobsRunning.dec({ kind });
    jobDuration.observe({ kind }, seconds);
    jobRuns.inc({ kind, outcome });
  },
};

const taskRuns = new Counter({
  name: 'quarry_periodic_task_runs_total',
  help: 'Runs of periodic tasks by this process, by task and outcome (ok, failed)',
  labelNames: ['task', 'outcome'] as const,
  registers,
});
const taskDuration = new Histogram({
  name: 'quarry_periodic_task_duration_seconds',
  help: 'Run time of periodic tasks, by task',
  labelNames: ['task'] as const,
  buckets: JOB_BUCKETS,
  registers,
});

export function periodicTaskRan(task: string, seconds: number, ok: boolean): void {
  taskRuns.inc({ task, outcome: ok ? 'ok' : 'failed' });
  taskDuration.observe({ task }, seconds);
}

export interface QueueCount {
  kind: string;
  state: string;
  n: number;
}

let queueCounts: (() => Promise<readonly QueueCount[]>) | null = null;
/** Every kind and state reported once, so that a count that falls to zero reads 0 rather than vanishing. */
const queueSeen = new Set<string>();

new Gauge({
  name: 'quarry_background_jobs',
  help: 'Background jobs in the database, by kind and state (queued, running, failed), read when scraped',
  labelNames: ['kind', 'state'] as const,
  registers,
  // Every process reads the same table: with several, their figures are one, not to be added.
  aggregator: 'first',
  async collect() {
    if (queueCounts === null) return;
    const rows = await queueCounts();
    this.reset();
    for (const key of queueSeen) {
      const [kind, state] = key.split('\n');
      this.set({ kind, state }, 0);
    }
    for (const row of rows) {
      queueSeen.add(`${row.kind}\n${row.state}`);
      this.set({ kind: row.kind, state: row.state }, row.n);
    }
  },
});

/** Where the queue's counts come from (one grouped query, at each scrape); returns its removal. */
export function reportQueueCounts(source: () => Promise<readonly QueueCount[]>): () => void {
  queueCounts = source;
  return () => {
    if (queueCounts === source) queueCounts = null;
  };
}

// ---- Who may read them --------------------------------------------------------------------------

/** IPv4 addresses written as IPv6 (::ffff:127.0.0.1) are read as IPv4. */
function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * Whether a client address may read the metrics: loopback always (127.0.0.0/8, ::1, and their
 * IPv4-mapped forms), and the ranges given (`address/prefix`, as config.ts normalizes them).
 */
export function metricsReaders(ranges: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  for (const range of ranges) {
    const [network, prefix] = range.split('/');
    const plain = plainAddress(network);
    if (isIPv4(plain)) list.addSubnet(plain, plain === network ? Number(prefix) : Math.max(0, Number(prefix) - 96), 'ipv4');
    else list.addSubnet(network, Number(prefix), 'ipv6');
  }
  return (address) => {
    if (address === undefined) return false;
    const plain = plainAddress(address);
    try {
      return list.check(plain, isIPv4(plain) ? 'ipv4' : 'ipv6');
    } catch {
      return false;
    }
  };
}
