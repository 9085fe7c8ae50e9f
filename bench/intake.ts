// What monitoring tools send (issue 18): the error-tracking collector taking a Sentry SDK's events,
// and an alert integration's receiver taking a monitoring tool's alerts. Each repeats one payload,
// as a failing service does: every event lands in the same error (its counter and last-seen time
// updated) and every alert in the same open alert (its occurrence counter). A GET of the project
// is measured in the same run as a second yardstick. One server process on SQLite, started as its
// own process; load from autocannon in another. Writes the `intake` section of bench/RESULTS.md
// (`npm run bench` runs it after the dialects; alone: `node bench/intake.ts`).
import { type Measure, benchServer, machineLine, measured, round, writeSection } from './ci-server.ts';

const bench = benchServer();
const { api, cannon } = bench;

const EVENT = JSON.stringify({
  platform: 'node',
  level: 'error',
  environment: 'production',
  exception: {
    values: [
      {
        type: 'TypeError',
        value: "Cannot read properties of undefined (reading 'id')",
        stacktrace: { frames: [{ filename: 'app.js', function: 'main', module: 'app', lineno: 3, in_app: true }, { filename: 'lib/users.js', function: 'loadUser', module: 'lib.users', lineno: 42, in_app: true }] },
      },
    ],
  },
});
const ALERT = JSON.stringify({ title: 'Disk full on db-1', severity: 'high', hosts: ['db-1'], monitoring_tool: 'bench' });

async function main(): Promise<string[]> {
  const started = new Date();
  await bench.start();
  const project = (await api('POST', '/api/v4/projects', { name: 'intake-bench', visibility: 'private' })).json;
  const settings = await api('PUT', `/api/v4/projects/${project.id}/error_tracking/settings`, { active: true, integrated: true });
  if (settings.status !== 200) throw new Error(`error tracking settings: ${settings.status} ${JSON.stringify(settings.json)}`);
  const key = (await api('POST', `/api/v4/projects/${project.id}/error_tracking/client_keys`)).json;
  const integration = (await api('POST', `/api/v4/projects/${project.id}/alert_management_http_integrations`, { name: 'Monitoring', active: true })).json;
  const receiver = new URL(integration.url).pathname;

  const store = { method: 'POST', body: EVENT, headers: { 'content-type': 'application/json', 'x-sentry-auth': `Sentry sentry_version=7, sentry_client=bench/1.0, sentry_key=${key.public_key}` } };
  const notify = { method: 'POST', body: ALERT, headers: { 'content-type': 'application/json', authorization: `Bearer ${integration.token}` } };
  const storePath = `/api/v4/error_tracking/collector/api/${project.id}/store`;
  for (const [label, path, request] of [['store', storePath, store], ['notify', receiver, notify]] as const) {
    const res = await fetch(`${bench.base}${path}`, request);
    if (res.status !== 200) throw new Error(`${label}: ${res.status} ${await res.text()}`);
  }

  const liveness = await cannon('/-/liveness');
  const projectRead = await cannon(`/api/v4/projects/${project.id}`);
  const events = await cannon(storePath, 10, undefined, store);
  const alerts = await cannon(receiver, 10, undefined, notify);
  const errors = (await api('GET', `/api/v4/projects/${project.id}/error_tracking/errors`)).json;
  const alertList = (await api('GET', `/api/v4/projects/${project.id}/alert_management_alerts`)).json;
  await bench.stop();

  const row = (label: string, r: Measure) => `| ${label} | ${measured(r)} | ${round(r.rps / liveness.rps, 3)} | ${round(r.rps / projectRead.rps, 2)} |`;
  return [
    '<!-- bench:intake -->',
    '## Latest run: error-tracking collector and alert receiver (SQLite, one server process)',
    '',
    machineLine(started),
    '',
    `Yardsticks measured in the same run: GET /-/liveness ${liveness.rps.toLocaleString('en')} req/s and GET /api/v4/projects/:id ${projectRead.rps.toLocaleString('en')} req/s; ratios are req/s over theirs. No target: these write a row per request.`,
    '',
    '| Measure | value | ratio to liveness | ratio to GET project |',
    '|---|--:|--:|--:|',
    row('GET /api/v4/projects/:id (root)', projectRead),
    row('POST /api/v4/error_tracking/collector/api/:id/store (one event, grouped into one error)', events),
    row('POST /<project>/-/alerts/notify/<name>/<id>.json (one payload, one open alert)', alerts),
    '',
    `Afterwards the project had ${errors.length} error with ${errors[0]?.events_count?.toLocaleString('en') ?? '?'} events and ${alertList.length} alert with ${alertList[0]?.event_count?.toLocaleString('en') ?? '?'} occurrences.`,
    '<!-- /bench:intake -->',
  ];
}

await writeSection('intake', bench, main);
