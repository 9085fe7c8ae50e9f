// HTTP integrations and alerts over REST (a Quarry extension): the whole entities, defaults,
// several integrations per project (the premium tier), updates that change nothing, the token
// sealed at rest and reset, removal (the alerts stay), the refusals in the platform's shapes, and
// the alerts list with its filters and pages.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../../../test/factories.ts';
import { BASE_URL, ROOT_TOKEN, type TestApp, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { ProjectRow } from '../../db/schema.ts';
import { AlertEntity, HttpIntegrationEntity } from './alert-management.schemas.ts';

let t: TestApp;
let p: ProjectRow;

before(async () => {
  t = await createTestApp();
  p = await createProject(t, { path: 'observed' });
});
after(() => t.close());

const url = (suffix = '', project: { id: number } = p) => `/api/v4/projects/${project.id}/alert_management_http_integrations${suffix}`;

async function create(body: Record<string, unknown>, project: { id: number } = p) {
  const res = await t.post(url('', project), { token: ROOT_TOKEN, body });
  expectStatus(res, 201);
  expectEntity(res.json(), HttpIntegrationEntity);
  return res.json();
}

describe('POST /projects/:id/alert_management_http_integrations', () => {
  test('the whole entity; active by default; the token sealed at rest', async () => {
    const res = await t.post(url(), { token: ROOT_TOKEN, body: { name: 'Datadog EU' } });
    expectStatus(res, 201);
    const body = res.json();
    expectEntity(body, HttpIntegrationEntity);
    assert.deepEqual(body, {
      id: body.id,
      name: 'Datadog EU',
      active: true,
      type: 'http',
      url: body.url,
      token: body.token,
      api_url: null,
      payload_example: {},
      payload_attribute_mappings: [],
      created_at: body.created_at,
      updated_at: body.created_at,
    });
    assert.match(body.url, new RegExp(`^${BASE_URL}/${p.full_path}/-/alerts/notify/datadog-eu/[0-9a-f]{16}\\.json$`));
    assert.match(body.token, /^[0-9a-f]{32}$/);
    const row = await t.deps.db.selectFrom('alert_management_http_integrations').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.ok(!row.token_encrypted.includes(body.token));
    assert.equal(secretBox(t.deps.config.dataDir).open(row.token_encrypted), body.token);
  });

  test('a payload example (object or JSON text) and a custom mapping', async () => {
    const mappings = [
      { field_name: 'title', path: ['alert', 'name'], type: 'string', label: 'Name' },
      { field_name: 'start_time', path: ['alert', 'times', 0], type: 'datetime' },
    ];
    const object = await create({ name: 'Mapped', active: false, payload_example: { alert: { name: 'x' } }, payload_attribute_mappings: mappings });
    assert.equal(object.active, false);
    assert.deepEqual(object.payload_example, { alert: { name: 'x' } });
    assert.deepEqual(object.payload_attribute_mappings, [mappings[0], { ...mappings[1], label: null }]);
    const text = await create({ name: 'Mapped text', payload_example: '{"a": [1, 2]}' });
    assert.deepEqual(text.payload_example, { a: [1, 2] });
  });

  test('several integrations per project (premium); names need not be unique', async () => {
    const q = await createProject(t, { path: 'many' });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ name: 'Same' }, q)).id);
    const res = await t.get(url('', q), { token: ROOT_TOKEN, query: { per_page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), HttpIntegrationEntity);
    assert.deepEqual(res.json().map((i: { id: number }) => i.id), ids.slice(0, 2));
    assert.equal(res.headers['x-total'], '3');
    assert.equal(res.headers['x-next-page'], '2');
  });

  test('refusals: missing or blank name, overlong name, bad types, a bad example or mapping; nothing written', async () => {
    const before = await t.count('alert_management_http_integrations');
    const cases: [Record<string, unknown>, unknown][] = [
      [{}, { error: 'name is missing' }],
      [{ name: '   ' }, { message: { name: ["can't be blank"] } }],
      [{ name: 'n'.repeat(256) }, { message: { name: ['is too long (maximum is 255 characters)'] } }],
      [{ name: 'x', active: 'maybe' }, { error: 'active is invalid' }],
      [{ name: 'x', payload_example: '{broken' }, { error: 'payload_example is invalid' }],
      [{ name: 'x', payload_example: '[1, 2]' }, { error: 'payload_example is invalid' }],
      [{ name: 'x', payload_example: `${'['.repeat(101)}${']'.repeat(101)}` }, { error: 'payload_example is invalid' }],
      [{ name: 'x', payload_example: `{"a":${'['.repeat(100)}${']'.repeat(100)}}` }, { error: 'payload_example JSON is too big' }],
      [{ name: 'x', payload_attribute_mappings: [{ field_name: 'colour', path: ['a'], type: 'string' }] }, { error: 'payload_attribute_mappings[][field_name] does not have a valid value' }],
      [{ name: 'x', payload_attribute_mappings: [{ field_name: 'title', path: ['a'], type: 'number' }] }, { error: 'payload_attribute_mappings[][type] does not have a valid value' }],
      [{ name: 'x', payload_attribute_mappings: [{ field_name: 'title', path: [], type: 'string' }] }, { error: 'payload_attribute_mappings[][path] is invalid' }],
      [{ name: 'x', payload_attribute_mappings: [{ field_name: 'title', path: [{ a: 1 }], type: 'string' }] }, { error: 'payload_attribute_mappings[][path] is invalid' }],
      [{ name: 'x', payload_attribute_mappings: [{ field_name: 'title', path: [-1], type: 'string' }] }, { error: 'payload_attribute_mappings[][path] is invalid' }],
    ];
    for (const [body, expected] of cases) expectError(await t.post(url(), { token: ROOT_TOKEN, body }), 400, expected);
    assert.equal(await t.count('alert_management_http_integrations'), before);
  });
});

describe('GET, PUT, reset_token, DELETE one integration', () => {
  test('an integration of another project, or none, is 404', async () => {
    const other = await createProject(t, { path: 'other' });
    const theirs = await create({ name: 'Theirs' }, other);
    for (const target of [url(`/${theirs.id}`), url('/999999')]) {
      expectError(await t.get(target, { token: ROOT_TOKEN }), 404, { message: '404 Integration Not Found' });
      expectError(await t.put(target, { token: ROOT_TOKEN, body: { name: 'x' } }), 404, { message: '404 Integration Not Found' });
      expectError(await t.post(`${target}/reset_token`, { token: ROOT_TOKEN }), 404, { message: '404 Integration Not Found' });
      expectError(await t.del(target, { token: ROOT_TOKEN }), 404, { message: '404 Integration Not Found' });
    }
  });

  test('an update of nothing keeps updated_at; a rename changes the address but not its identifier', async () => {
    const made = await create({ name: 'Before' });
    const same = await t.put(url(`/${made.id}`), { token: ROOT_TOKEN, body: { name: 'Before', active: true } });
    expectStatus(same, 200);
    assert.deepEqual(same.json(), made);
    const renamed = await t.put(url(`/${made.id}`), { token: ROOT_TOKEN, body: { name: 'After', payload_example: { b: 1 }, payload_attribute_mappings: [] } });
    expectStatus(renamed, 200);
    expectEntity(renamed.json(), HttpIntegrationEntity);
    assert.equal(renamed.json().url, made.url.replace('/before/', '/after/'));
    assert.deepEqual(renamed.json().payload_example, { b: 1 });
    assert.equal(renamed.json().token, made.token);
    expectError(await t.put(url(`/${made.id}`), { token: ROOT_TOKEN, body: { name: '' } }), 400, { message: { name: ["can't be blank"] } });
    const read = await t.get(url(`/${made.id}`), { token: ROOT_TOKEN });
    expectStatus(read, 200);
    assert.deepEqual(read.json(), renamed.json());
  });

  test('reset_token makes a new token; DELETE removes the integration and keeps its alerts', async () => {
    const made = await create({ name: 'Short-lived' });
    const reset = await t.post(url(`/${made.id}/reset_token`), { token: ROOT_TOKEN });
    expectStatus(reset, 201);
    expectEntity(reset.json(), HttpIntegrationEntity);
    assert.notEqual(reset.json().token, made.token);
    const sent = await t.request('POST', new URL(made.url).pathname, { headers: { authorization: `Bearer ${reset.json().token}` }, body: { title: 'Before removal' } });
    expectStatus(sent, 200);
    const removed = await t.del(url(`/${made.id}`), { token: ROOT_TOKEN });
    expectStatus(removed, 204);
    assert.equal(removed.body, '');
    expectError(await t.get(url(`/${made.id}`), { token: ROOT_TOKEN }), 404, { message: '404 Integration Not Found' });
    const gone = await t.request('POST', new URL(made.url).pathname, { headers: { authorization: `Bearer ${reset.json().token}` }, body: { title: 'After removal' } });
    assert.equal(gone.statusCode, 403);
    const kept = await t.get(`/api/v4/projects/${p.id}/alert_management_alerts/${sent.json()[0].iid}`, { token: ROOT_TOKEN });
    expectStatus(kept, 200);
    assert.equal(kept.json().title, 'Before removal');
  });
});

describe('GET /projects/:id/alert_management_alerts', () => {
  test('newest first, filtered by status and severity, paged; an unknown alert is 404', async () => {
    const q = await createProject(t, { path: 'alerts-list' });
    const made = await create({ name: 'Feed' }, q);
    const path = new URL(made.url).pathname;
    const send = (body: unknown) => t.request('POST', path, { headers: { authorization: `Bearer ${made.token}` }, body });
    await send({ title: 'one', severity: 'low' });
    await send({ title: 'two', severity: 'high' });
    await send({ title: 'three', severity: 'low', end_time: '2021-01-01T00:00:00Z' });
    const list = async (query: Record<string, string>) => {
      const res = await t.get(`/api/v4/projects/${q.id}/alert_management_alerts`, { token: ROOT_TOKEN, query });
      expectStatus(res, 200);
      expectEntities(res.json(), AlertEntity);
      return res;
    };
    assert.deepEqual((await list({})).json().map((a: { title: string }) => a.title), ['three', 'two', 'one']);
    assert.deepEqual((await list({ status: 'triggered' })).json().map((a: { title: string }) => a.title), ['two', 'one']);
    assert.deepEqual((await list({ severity: 'low' })).json().map((a: { title: string }) => a.title), ['three', 'one']);
    const page = await list({ per_page: '1', page: '2' });
    assert.deepEqual(page.json().map((a: { title: string }) => a.title), ['two']);
    assert.equal(page.headers['x-total'], '3');
    expectError(await t.get(`/api/v4/projects/${q.id}/alert_management_alerts`, { token: ROOT_TOKEN, query: { status: 'open' } }), 400, { error: 'status does not have a valid value' });
    expectError(await t.get(`/api/v4/projects/${q.id}/alert_management_alerts/99`, { token: ROOT_TOKEN }), 404, { message: '404 Alert Not Found' });
  });
});
