// GET /-/metrics: the metrics of the server (core/metrics.ts) in the Prometheus text format, for
// loopback and the addresses of QUARRY_METRICS_ALLOW. Anyone else gets the answer of an unknown
// route, as the platform restricts its own metrics: nothing tells that there is something here.
// With several server processes, the answer covers them all (core/metrics-cluster.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { metricsReaders, registry, reportQueueCounts } from '../../core/metrics.ts';
import { metricsText } from '../../core/metrics-cluster.ts';
import { countJobs } from '../../jobs/queue.ts';

export const metricsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { config, db } = app.deps;
  const mayRead = metricsReaders(config.metricsAllow);
  // The queue's counts by kind and state are read from the database at each scrape, not kept here.
  const stopReporting = reportQueueCounts(() => countJobs(db));
  app.addHook('onClose', async () => stopReporting());

  const description = 'The server\'s metrics in the Prometheus text format. Answered to loopback and to the addresses of `QUARRY_METRICS_ALLOW`; anyone else gets 404, as for an unknown route.';
  app.get('/-/metrics', { schema: { description }, config: { auth: 'none', json: false } }, async (req, reply) => {
    // The peer's address itself: no forwarding header can claim to be loopback.
    if (!mayRead(req.socket.remoteAddress)) return reply.callNotFound();
    const text = await metricsText();
    return reply.type(registry.contentType).header('cache-control', 'no-store').send(text);
  });
};
