// The alert receiver over real HTTP (a listening server, fetch as the monitoring tool): the answers
// of release 14.5 (200 with the alert's iid and title; 201 and nothing for an Alertmanager
// notification; empty 400, 401, 403 and 404), the payload read as the platform reads it (§2.18
// defaults, severities, hosts, truncation, custom properties kept), grouping by fingerprint with
// an event counter, resolution by end time, a new alert after a resolved one, custom field
// mapping, the older address, the limits (1 MB, 100 levels, JSON objects only), and concurrent
// deliveries of one alert.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createGroup, createProject } from '../../../test/factories.ts';
import { ROOT_TOKEN, type TestApp } from '../../../test/harness.ts';
import { listeningTestApp } from '../../../test/listening.ts';
import { expectEntities, expectEntity, expectStatus } from '../../../test/matchers.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { AlertEntity, NotifiedAlertEntity } from './alert-management.schemas.ts';

let t: TestApp;
let host: string;
let group: { full_path: string };

interface Integration {
  id: number;
  url: string;
  token: string;
}

before(async () => {
  ({ t, host } = await listeningTestApp());
  const parent = await createGroup(t, { path: 'ops' });
  const sub = await createGroup(t, { path: 'monitoring', parent });
  group = sub;
});
after(() => t.close());

let sequence = 0;
async function project(): Promise<ProjectRow> {
  return createProject(t, { path: `service-${++sequence}`, namespace: group as never });
}

async function integration(p: ProjectRow, body: Record<string, unknown> = {}): Promise<Integration> {
  const res = await t.post(`/api/v4/projects/${p.id}/alert_management_http_integrations`, { token: ROOT_TOKEN, body: { name: 'Monitoring', active: true, ...body } });
  expectStatus(res, 201);
  return res.json();
}

/** Posts to the address as a monitoring tool does. */
async function notify(url: string, body: unknown, options: { token?: string | null; type?: string } = {}): Promise<{ status: number; type: string | null; text: string }> {
  const headers: Record<string, string> = { 'content-type': options.type ?? 'application/json' };
  if (options.token !== null && options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(url, { method: 'POST', headers, body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

async function alerts(p: ProjectRow) {
  const res = await t.get(`/api/v4/projects/${p.id}/alert_management_alerts`, { token: ROOT_TOKEN, query: { per_page: '100' } });
  expectStatus(res, 200);
  expectEntities(res.json(), AlertEntity);
  return res.json() as { iid: number; title: string; severity: string; status: string; event_count: number; hosts: string[]; started_at: string; ended_at: string | null; payload: unknown; description: string | null; service: string | null; monitoring_tool: string | null; fingerprint: string | null }[];
}

async function alert(p: ProjectRow, iid: number) {
  const res = await t.get(`/api/v4/projects/${p.id}/alert_management_alerts/${iid}`, { token: ROOT_TOKEN });
  expectStatus(res, 200);
  expectEntity(res.json(), AlertEntity);
  return res.json();
}

/** A 200 answer naming the alerts. */
function answered(res: { status: number; type: string | null; text: string }, expected: { iid: number; title: string }[]) {
  assert.equal(res.status, 200, res.text);
  assert.equal(res.type, 'application/json');
  const body = JSON.parse(res.text);
  expectEntities(body, NotifiedAlertEntity);
  assert.deepEqual(body, expected);
}

function refused(res: { status: number; text: string }, status: number) {
  assert.equal(res.status, status, res.text);
  assert.equal(res.text, '', 'an error answer has no body');
}

describe('a generic payload', () => {
  test('all properties read, custom ones kept; the answer names the alert', async () => {
    const p = await project();
    const i = await integration(p);
    assert.match(i.url, new RegExp(`^${host}/ops/monitoring/${p.path}/-/alerts/notify/monitoring/[0-9a-f]{16}\\.json$`));
    const payload = {
      title: 'Disk full on db-1',
      description: 'Less than 1% left',
      start_time: '2021-11-20T10:00:00+02:00',
      service: 'database',
      monitoring_tool: 'Zabbix',
      hosts: 'db-1.example.com',
      severity: 'HiGh',
      service_environment_name: 'production',
      custom: { nested: { deep: [1, 2, { x: true }] } },
    };
    answered(await notify(i.url, payload, { token: i.token }), [{ iid: 1, title: 'Disk full on db-1' }]);
    const a = await alert(p, 1);
    assert.equal(a.title, 'Disk full on db-1');
    assert.equal(a.description, 'Less than 1% left');
    assert.equal(a.started_at, '2021-11-20T08:00:00.000Z');
    assert.equal(a.ended_at, null);
    assert.equal(a.service, 'database');
    assert.equal(a.monitoring_tool, 'Zabbix');
    assert.deepEqual(a.hosts, ['db-1.example.com']);
    assert.equal(a.severity, 'high');
    assert.equal(a.status, 'triggered');
    assert.equal(a.event_count, 1);
    assert.deepEqual(a.payload, payload);
    assert.match(a.fingerprint, /^[0-9a-f]{40}$/);
    assert.equal(a.web_url, `${host}/ops/monitoring/${p.path}/-/alert_management/1/details`);
  });

  test('defaults: title "New: Alert", severity critical, started now; an empty body is an empty payload', async () => {
    const p = await project();
    const i = await integration(p);
    const before = Date.now();
    answered(await notify(i.url, '', { token: i.token }), [{ iid: 1, title: 'New: Alert' }]);
    answered(await notify(i.url, { severity: 'bogus', start_time: 'not a time', title: '   ' }, { token: i.token }), [{ iid: 2, title: 'New: Alert' }]);
    const [second, first] = await alerts(p);
    for (const a of [first, second]) {
      assert.equal(a.severity, 'critical');
      assert.ok(Date.parse(a.started_at) >= before - 1000);
      assert.deepEqual(a.hosts, []);
    }
    // Nothing in an empty payload identifies it: it is not grouped.
    assert.equal(first.fingerprint, null);
  });

  test('severity is matched whatever its case, `unknown` included (spec §2.18); anything else is critical', async () => {
    const p = await project();
    const i = await integration(p);
    const cases: [unknown, string][] = [['CRITICAL', 'critical'], ['High', 'high'], ['medium', 'medium'], ['LOW', 'low'], ['Info', 'info'], ['UNKNOWN', 'unknown'], ['warning', 'critical'], [3, 'critical'], [null, 'critical']];
    for (const [n, [severity]] of cases.entries()) await notify(i.url, { title: `case ${n}`, severity }, { token: i.token });
    const bySeverity = Object.fromEntries((await alerts(p)).map((a) => [a.title, a.severity]));
    for (const [n, [, expected]] of cases.entries()) assert.equal(bySeverity[`case ${n}`], expected, `severity ${JSON.stringify(cases[n][0])}`);
  });

  test('hosts: a string or a (nested) array, 255 characters at most in all; long texts are cut', async () => {
    const p = await project();
    const i = await integration(p);
    await notify(i.url, { title: 'one', hosts: ['a.example', ['b.example', ['c.example']]] }, { token: i.token });
    await notify(i.url, { title: 'two', hosts: ['x'.repeat(200), 'y'.repeat(100), 'z'] }, { token: i.token });
    await notify(i.url, { title: 't'.repeat(300), description: 'd'.repeat(1200), service: 's'.repeat(150) }, { token: i.token });
    const [long, two, one] = await alerts(p);
    assert.deepEqual(one.hosts, ['a.example', 'b.example', 'c.example']);
    assert.deepEqual(two.hosts, ['x'.repeat(200), 'y'.repeat(55)]);
    assert.equal(long.title, `${'t'.repeat(197)}...`);
    assert.equal(long.description, `${'d'.repeat(997)}...`);
    assert.equal(long.service, `${'s'.repeat(97)}...`);
  });
});

describe('grouping and resolution', () => {
  test('an explicit fingerprint (text or array) groups payloads whatever else differs, counting events', async () => {
    const p = await project();
    const i = await integration(p);
    answered(await notify(i.url, { title: 'CPU', fingerprint: 'cpu-1' }, { token: i.token }), [{ iid: 1, title: 'CPU' }]);
    answered(await notify(i.url, { title: 'CPU again', fingerprint: 'cpu-1', severity: 'low' }, { token: i.token }), [{ iid: 1, title: 'CPU' }]);
    answered(await notify(i.url, { title: 'Memory', fingerprint: ['mem', 1] }, { token: i.token }), [{ iid: 2, title: 'Memory' }]);
    answered(await notify(i.url, { title: 'Memory', fingerprint: ['me', ['m1']] }, { token: i.token }), [{ iid: 2, title: 'Memory' }]);
    const [memory, cpu] = await alerts(p);
    assert.equal(cpu.event_count, 2);
    // The first payload made the alert; later ones only count.
    assert.equal(cpu.severity, 'critical');
    assert.equal(memory.event_count, 2);
  });

  test('without a fingerprint, identical payloads group, ignoring start_time, end_time and hosts', async () => {
    const p = await project();
    const i = await integration(p);
    const base = { title: 'Queue backlog', service: 'jobs' };
    answered(await notify(i.url, { ...base, start_time: '2021-01-01T00:00:00Z', hosts: ['a'] }, { token: i.token }), [{ iid: 1, title: 'Queue backlog' }]);
    answered(await notify(i.url, { ...base, start_time: '2021-01-02T00:00:00Z', hosts: 'b' }, { token: i.token }), [{ iid: 1, title: 'Queue backlog' }]);
    answered(await notify(i.url, { ...base, service: 'web' }, { token: i.token }), [{ iid: 2, title: 'Queue backlog' }]);
    const [web, jobs] = await alerts(p);
    assert.equal(jobs.event_count, 2);
    assert.equal(web.event_count, 1);
    assert.equal(jobs.started_at, '2021-01-01T00:00:00.000Z');
  });

  test('end_time resolves the open alert; the same payload then opens a new one', async () => {
    const p = await project();
    const i = await integration(p);
    const base = { title: 'Latency', fingerprint: 'latency' };
    answered(await notify(i.url, base, { token: i.token }), [{ iid: 1, title: 'Latency' }]);
    answered(await notify(i.url, base, { token: i.token }), [{ iid: 1, title: 'Latency' }]);
    answered(await notify(i.url, { ...base, end_time: '2021-11-20T12:30:00Z' }, { token: i.token }), [{ iid: 1, title: 'Latency' }]);
    let first = await alert(p, 1);
    assert.equal(first.status, 'resolved');
    assert.equal(first.ended_at, '2021-11-20T12:30:00.000Z');
    assert.equal(first.event_count, 2, 'a recovery is no new event');
    answered(await notify(i.url, base, { token: i.token }), [{ iid: 2, title: 'Latency' }]);
    const second = await alert(p, 2);
    assert.equal(second.status, 'triggered');
    assert.equal(second.event_count, 1);
    first = await alert(p, 1);
    assert.equal(first.status, 'resolved');
  });

  test('a recovery payload without an open alert makes one already resolved (14.x)', async () => {
    const p = await project();
    const i = await integration(p);
    answered(await notify(i.url, { title: 'Late recovery', end_time: '2021-11-20T12:30:00Z' }, { token: i.token }), [{ iid: 1, title: 'Late recovery' }]);
    const a = await alert(p, 1);
    assert.equal(a.status, 'resolved');
    assert.equal(a.ended_at, '2021-11-20T12:30:00.000Z');
    const res = await t.get(`/api/v4/projects/${p.id}/alert_management_alerts`, { token: ROOT_TOKEN, query: { status: 'triggered' } });
    assert.deepEqual(res.json(), []);
  });

  test('concurrent deliveries of one alert make one alert with every event counted', async () => {
    const p = await project();
    const i = await integration(p);
    const answers = await Promise.all(Array.from({ length: 8 }, () => notify(i.url, { title: 'Flapping', fingerprint: 'flap' }, { token: i.token })));
    for (const res of answers) answered(res, [{ iid: JSON.parse(res.text)[0].iid, title: 'Flapping' }]);
    const list = await alerts(p);
    assert.equal(list.length, 1);
    assert.equal(list[0].event_count, 8);
    assert.ok(answers.every((res) => JSON.parse(res.text)[0].iid === list[0].iid));
  });
});

describe('custom field mapping', () => {
  test('mapped fields are read from their paths, falling back to the standard properties', async () => {
    const p = await project();
    const i = await integration(p, {
      payload_example: JSON.stringify({ alert: { name: 'x', since: '2021-01-01T00:00:00Z', level: 'warn', id: 'x', until: null } }),
      payload_attribute_mappings: [
        { field_name: 'title', path: ['alert', 'name'], type: 'string', label: 'Alert name' },
        { field_name: 'start_time', path: ['alert', 'since'], type: 'datetime' },
        { field_name: 'end_time', path: ['alert', 'until'], type: 'datetime' },
        { field_name: 'severity', path: ['alert', 'level'], type: 'string' },
        { field_name: 'fingerprint', path: ['alert', 'id'], type: 'string' },
        { field_name: 'hosts', path: ['targets', 0, 'hosts'], type: 'array' },
      ],
    });
    const firing = { alert: { name: 'Broken build', since: '2021-06-01T10:00:00Z', level: 'LOW', id: 'build-7' }, targets: [{ hosts: ['ci-1', 'ci-2'] }] };
    answered(await notify(i.url, firing, { token: i.token }), [{ iid: 1, title: 'Broken build' }]);
    answered(await notify(i.url, { ...firing, alert: { ...firing.alert, since: '2021-06-01T11:00:00Z' } }, { token: i.token }), [{ iid: 1, title: 'Broken build' }]);
    let a = await alert(p, 1);
    assert.equal(a.started_at, '2021-06-01T10:00:00.000Z');
    assert.equal(a.severity, 'low');
    assert.deepEqual(a.hosts, ['ci-1', 'ci-2']);
    assert.equal(a.event_count, 2);
    // The mapped end time resolves it.
    answered(await notify(i.url, { ...firing, alert: { ...firing.alert, until: '2021-06-01T12:00:00Z' } }, { token: i.token }), [{ iid: 1, title: 'Broken build' }]);
    a = await alert(p, 1);
    assert.equal(a.status, 'resolved');
    assert.equal(a.ended_at, '2021-06-01T12:00:00.000Z');
    // What the mapping does not find comes from the standard property.
    answered(await notify(i.url, { title: 'Standard title', severity: 'info' }, { token: i.token }), [{ iid: 2, title: 'Standard title' }]);
    assert.equal((await alert(p, 2)).severity, 'info');
  });
});

describe('Prometheus Alertmanager notifications', () => {
  const notification = (alerts: unknown[], status = 'firing') => ({
    version: '4',
    groupKey: '{}:{alertname="HighLoad"}',
    status,
    receiver: 'quarry',
    groupLabels: { alertname: 'HighLoad' },
    commonLabels: { alertname: 'HighLoad' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.example:9093',
    alerts,
  });
  const firing = (instance: string, severity: string) => ({
    status: 'firing',
    labels: { alertname: 'HighLoad', instance, severity },
    annotations: { summary: `High load on ${instance}`, description: 'Load above 10' },
    startsAt: '2021-11-20T10:00:00.000Z',
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prometheus.example:9090/graph?g0.expr=node_load1+%3E+10&g0.tab=1',
  });

  test('one alert per entry, answered 201 with no body; a resolved entry resolves its alert', async () => {
    const p = await project();
    const i = await integration(p);
    const res = await notify(i.url, notification([firing('web-1', 'warning'), firing('web-2', 'P1'), { status: 'firing', labels: {} }]), { token: i.token });
    refused(res, 201);
    let list = await alerts(p);
    assert.deepEqual(
      list.map((a) => [a.title, a.severity, a.monitoring_tool, a.description, a.started_at, a.status]),
      [
        ['High load on web-2', 'critical', 'Prometheus', 'Load above 10', '2021-11-20T10:00:00.000Z', 'triggered'],
        ['High load on web-1', 'low', 'Prometheus', 'Load above 10', '2021-11-20T10:00:00.000Z', 'triggered'],
      ],
    );
    // Sent again: the same alerts, one more event each.
    refused(await notify(i.url, notification([firing('web-1', 'warning')]), { token: i.token }), 201);
    const resolved = { ...firing('web-1', 'warning'), status: 'resolved', endsAt: '2021-11-20T11:00:00.000Z' };
    refused(await notify(i.url, notification([resolved], 'resolved'), { token: i.token }), 201);
    list = await alerts(p);
    const web1 = list.find((a) => a.title === 'High load on web-1');
    assert.equal(web1?.event_count, 2);
    assert.equal(web1?.status, 'resolved');
    assert.equal(web1?.ended_at, '2021-11-20T11:00:00.000Z');
  });

  test('a wrong token, or no active integration at the address, is 401', async () => {
    const p = await project();
    const i = await integration(p);
    refused(await notify(i.url, notification([firing('a', 'high')]), { token: 'wrong' }), 401);
    await t.put(`/api/v4/projects/${p.id}/alert_management_http_integrations/${i.id}`, { token: ROOT_TOKEN, body: { active: false } });
    refused(await notify(i.url, notification([firing('a', 'high')]), { token: i.token }), 401);
    assert.deepEqual(await alerts(p), []);
  });
});

describe('refusals', () => {
  test('a wrong or missing token is 401; an inactive or unknown integration 403; an unknown project 404', async () => {
    const p = await project();
    const i = await integration(p);
    refused(await notify(i.url, { title: 'x' }, { token: 'f'.repeat(32) }), 401);
    refused(await notify(i.url, { title: 'x' }, { token: null }), 401);
    refused(await notify(i.url, { title: 'x' }, { token: ROOT_TOKEN }), 401);
    refused(await notify(i.url.replace(/[0-9a-f]{16}\.json$/, 'ffffffffffffffff.json'), { title: 'x' }, { token: i.token }), 403);
    refused(await notify(`${host}/ops/monitoring/nowhere/-/alerts/notify/a/abc.json`, { title: 'x' }, { token: i.token }), 404);
    const off = await t.put(`/api/v4/projects/${p.id}/alert_management_http_integrations/${i.id}`, { token: ROOT_TOKEN, body: { active: false } });
    expectStatus(off, 200);
    refused(await notify(i.url, { title: 'x' }, { token: i.token }), 403);
    // A reset token replaces the old one at once.
    await t.put(`/api/v4/projects/${p.id}/alert_management_http_integrations/${i.id}`, { token: ROOT_TOKEN, body: { active: true } });
    const reset = await t.post(`/api/v4/projects/${p.id}/alert_management_http_integrations/${i.id}/reset_token`, { token: ROOT_TOKEN });
    expectStatus(reset, 201);
    assert.notEqual(reset.json().token, i.token);
    refused(await notify(i.url, { title: 'x' }, { token: i.token }), 401);
    answered(await notify(i.url, { title: 'x' }, { token: reset.json().token }), [{ iid: 1, title: 'x' }]);
    // Only the identifier names the integration; any name serves.
    answered(await notify(i.url.replace('/notify/monitoring/', '/notify/anything/'), { title: 'x' }, { token: reset.json().token }), [{ iid: 1, title: 'x' }]);
  });

  test('a body over 1 MB, nested deeper than 100 levels, not JSON, or no object is 400; nothing is written', async () => {
    const p = await project();
    const i = await integration(p);
    const written = await t.count('alert_management_alerts');
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;
    refused(await notify(i.url, JSON.stringify({ title: 'big', blob: 'x'.repeat(1024 * 1024) }), { token: i.token }), 400);
    refused(await notify(i.url, nested(101), { token: i.token }), 400);
    refused(await notify(i.url, `[${nested(100)}]`, { token: i.token }), 400);
    refused(await notify(i.url, 'title=Disk+full', { token: i.token, type: 'application/x-www-form-urlencoded' }), 400);
    refused(await notify(i.url, '{"title": "broken"', { token: i.token }), 400);
    refused(await notify(i.url, '["a list"]', { token: i.token }), 400);
    refused(await notify(i.url, Buffer.from([0xff, 0xfe, 0x00, 0x01]), { token: i.token, type: 'application/octet-stream' }), 400);
    // The size check comes before the token's.
    refused(await notify(i.url, nested(101), { token: 'wrong' }), 400);
    assert.equal(await t.count('alert_management_alerts'), written);
    // At the limits: 100 levels, and just under 1 MB.
    answered(await notify(i.url, nested(100), { token: i.token }), [{ iid: 1, title: 'New: Alert' }]);
    answered(await notify(i.url, JSON.stringify({ title: 'large', blob: 'x'.repeat(1024 * 1024 - 40) }), { token: i.token }), [{ iid: 2, title: 'large' }]);
    // Odd text is kept as it came.
    answered(await notify(i.url, { title: 'émoji 🔥 \u202e RTL', description: 'tab\there' }, { token: i.token }), [{ iid: 3, title: 'émoji 🔥 \u202e RTL' }]);
  });
});

describe('the older address, /-/alerts/notify.json', () => {
  test("is answered by the project's oldest active integration; none is 403", async () => {
    const p = await project();
    const legacy = `${host}/ops/monitoring/${p.path}/-/alerts/notify.json`;
    refused(await notify(legacy, { title: 'x' }, { token: 'a'.repeat(32) }), 403);
    const first = await integration(p, { name: 'First' });
    const second = await integration(p, { name: 'Second' });
    refused(await notify(legacy, { title: 'x' }, { token: second.token }), 401);
    answered(await notify(legacy, { title: 'Legacy' }, { token: first.token }), [{ iid: 1, title: 'Legacy' }]);
    await t.put(`/api/v4/projects/${p.id}/alert_management_http_integrations/${first.id}`, { token: ROOT_TOKEN, body: { active: false } });
    answered(await notify(legacy, { title: 'Legacy' }, { token: second.token }), [{ iid: 1, title: 'Legacy' }]);
  });
});
