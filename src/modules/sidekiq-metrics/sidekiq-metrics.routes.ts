// GET /sidekiq/{queue,process,job}_stats|metrics and compound_metrics: administrators read the job
// queue's health in the shapes of the platform's Sidekiq metrics. The processes are the one
// answering: nodes keep no register of their workers, and an idle worker leaves no trace.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminOnly } from '../../core/access/guards.ts';
import { thisHost } from '../../core/processes.ts';
import { backgroundJobKinds } from '../../jobs/kinds.ts';
import { DEFAULT_WORKER_CONCURRENCY } from '../../jobs/worker.ts';
import { jobTotals, readyJobsByKind, runningJobsOf, seenKinds } from './sidekiq-metrics.finder.ts';
import { presentProcess, presentQueues } from './sidekiq-metrics.presenter.ts';
import { CompoundMetricsResponse, JobStatsResponse, ProcessMetricsResponse, QueueMetricsResponse } from './sidekiq-metrics.schemas.ts';

const ADMINS = { config: { auth: 'required' }, preHandler: adminOnly } as const;
const KIND_NAMES = backgroundJobKinds.map((kind) => kind.name);
const STARTED_AT = new Date(Date.now() - process.uptime() * 1000);

export const sidekiqMetricsRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, now } = api.deps;

  const queues = async () => {
    const at = now();
    return presentQueues([...KIND_NAMES, ...(await seenKinds(db))], await readyJobsByKind(db, at), at);
  };
  const processes = async () => {
    const hostname = thisHost();
    const busy = await runningJobsOf(db, hostname, process.pid);
    return [presentProcess({ hostname, pid: process.pid, startedAt: STARTED_AT, kinds: KIND_NAMES, concurrency: DEFAULT_WORKER_CONCURRENCY, busy })];
  };
  const jobs = () => jobTotals(db, now());

  api.get('/sidekiq/queue_metrics', { schema: { response: { 200: QueueMetricsResponse } }, ...ADMINS }, async () => ({ queues: await queues() }));
  api.get('/sidekiq/process_metrics', { schema: { response: { 200: ProcessMetricsResponse } }, ...ADMINS }, async () => ({ processes: await processes() }));
  api.get('/sidekiq/job_stats', { schema: { response: { 200: JobStatsResponse } }, ...ADMINS }, async () => ({ jobs: await jobs() }));
  api.get('/sidekiq/compound_metrics', { schema: { response: { 200: CompoundMetricsResponse } }, ...ADMINS }, async () => ({
    queues: await queues(),
    processes: await processes(),
    jobs: await jobs(),
  }));
};
