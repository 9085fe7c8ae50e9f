// Pure queue counts → the Sidekiq metrics entities.
import type { QueueCounts } from './sidekiq-metrics.finder.ts';
import type { ProcessMetrics, QueueMetrics } from './sidekiq-metrics.schemas.ts';

/** Every kind, in name order: its ready jobs and the whole seconds the oldest has waited (0 when none). */
export function presentQueues(kinds: readonly string[], counts: readonly QueueCounts[], now: Date): QueueMetrics {
  const byKind = new Map(counts.map((c) => [c.kind, c]));
  const queues: QueueMetrics = {};
  for (const kind of [...new Set([...kinds, ...byKind.keys()])].sort()) {
    const count = byKind.get(kind);
    queues[kind] = count ? { backlog: count.backlog, latency: Math.max(0, Math.floor((now.getTime() - Date.parse(count.oldestDue)) / 1000)) } : { backlog: 0, latency: 0 };
  }
  return queues;
}

export interface WorkerProcess {
  hostname: string;
  pid: number;
  startedAt: Date;
  kinds: readonly string[];
  concurrency: number;
  busy: number;
}

export function presentProcess(p: WorkerProcess): ProcessMetrics {
  return { hostname: p.hostname, pid: p.pid, tag: 'quarry', started_at: p.startedAt.toISOString(), queues: [...p.kinds].sort(), labels: [], concurrency: p.concurrency, busy: p.busy };
}
