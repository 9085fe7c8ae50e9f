// With several server processes (QUARRY_WORKERS > 1) each keeps its own metrics, and a scrape
// reaches whichever process the cluster hands the connection to. That process asks the supervisor,
// which gathers every process's metrics through prom-client's AggregatorRegistry (counters and
// histograms added up; each metric's `aggregator` says otherwise) and sends the sum back.
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { registry } from './metrics.ts';

const REQUEST = 'quarry:metrics-request';
const RESPONSE = 'quarry:metrics-response';
/** Longer than prom-client's own 5 s for gathering from every process. */
const TIMEOUT_MS = 6000;

interface Message {
  type?: unknown;
  id?: unknown;
  text?: unknown;
  error?: unknown;
}

if (cluster.isWorker) {
  // Answers the supervisor's requests for this process's metrics.
  AggregatorRegistry.setRegistries(registry);
  new AggregatorRegistry();
}

/** In the supervisor: answers the server processes' requests for the metrics of them all. */
export function superviseMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: Message) => {
    if (message?.type !== REQUEST) return;
    const reply = (body: object) => {
      if (worker.isConnected()) worker.send({ type: RESPONSE, id: message.id, ...body });
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

let sequence = 0;

/** The metrics of every server process when this one is a worker of a cluster; of this process otherwise. */
export async function metricsText(): Promise<string> {
  if (!cluster.isWorker || !process.send) return registry.metrics();
  const id = ++sequence;
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, text?: string) => {
      clearTimeout(timer);
      process.off('message', listen);
      if (error) reject(error);
      else resolve(text ?? '');
    };
    const listen = (message: Message) => {
      if (message?.type !== RESPONSE || message.id !== id) return;
      if (typeof message.text === 'string') done(null, message.text);
      else done(new Error(`the supervisor could not gather the metrics: ${String(message.error)}`));
    };
    const timer = setTimeout(() => done(new Error('the supervisor did not send the metrics in time')), TIMEOUT_MS);
    process.on('message', listen);
    process.send?.({ type: REQUEST, id });
  });
}
