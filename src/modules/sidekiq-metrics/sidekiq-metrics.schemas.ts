// The platform's Sidekiq metrics API (14.x), answered from Quarry's own job queue: a queue is a
// job kind, a process a server process running a worker.
import { type Static, Type } from '@sinclair/typebox';
import { Entity, Timestamp } from '../../core/schema.ts';

export const QueueMetricsEntity = Type.Record(Type.String(), Entity({ backlog: Type.Integer(), latency: Type.Integer() }));
export type QueueMetrics = Static<typeof QueueMetricsEntity>;

export const ProcessMetricsEntity = Entity({
  hostname: Type.String(),
  pid: Type.Integer(),
  tag: Type.String(),
  started_at: Timestamp,
  queues: Type.Array(Type.String()),
  labels: Type.Array(Type.String()),
  concurrency: Type.Integer(),
  busy: Type.Integer(),
});
export type ProcessMetrics = Static<typeof ProcessMetricsEntity>;

export const JobStatsEntity = Entity({ processed: Type.Integer(), failed: Type.Integer(), enqueued: Type.Integer(), dead: Type.Integer() });
export type JobStats = Static<typeof JobStatsEntity>;

export const QueueMetricsResponse = Entity({ queues: QueueMetricsEntity });
export const ProcessMetricsResponse = Entity({ processes: Type.Array(ProcessMetricsEntity) });
export const JobStatsResponse = Entity({ jobs: JobStatsEntity });
export const CompoundMetricsResponse = Entity({ queues: QueueMetricsEntity, processes: Type.Array(ProcessMetricsEntity), jobs: JobStatsEntity });
