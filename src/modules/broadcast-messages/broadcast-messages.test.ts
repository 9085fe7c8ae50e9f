// Broadcast messages: create with the defaults and every field, change, delete; the model's
// refusals; anyone reads them, newest first; only administrators write.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { BroadcastMessageEntity } from './broadcast-messages.schemas.ts';

let t: TestApp;
let user: TestUser;

before(async () => {
  t = await createTestApp();
  user = await t.user();
});
after(() => t.close());

const create = (body: Record<string, unknown>, token = ROOT_TOKEN) => t.post('/api/v4/broadcast_messages', { token, body });

describe('POST /broadcast_messages', () => {
  test('the defaults: now for an hour, the platform colours, a banner for everyone', async () => {
    const before = Date.now();
    const res = await create({ message: 'Maintenance tonight' });
    expectStatus(res, 201);
    expectEntity(res.json(), BroadcastMessageEntity);
    const body = res.json();
    assert.deepEqual({ ...body, starts_at: 0, ends_at: 0 }, {
      id: body.id,
      message: 'Maintenance tonight',
      starts_at: 0,
      ends_at: 0,
      color: '#E75E40',
      font: '#FFFFFF',
      target_access_levels: [],
      target_path: null,
      broadcast_type: 'banner',
      dismissable: null,
      active: true,
    });
    const starts = Date.parse(body.starts_at);
    assert.ok(starts >= before - 1000 && starts <= Date.now() + 1000);
    assert.equal(Date.parse(body.ends_at) - starts, 3_600_000);
  });

  test('every field, as JSON or as form parameters', async () => {
    const res = await create({
      message: 'Read the *changelog*',
      starts_at: '2031-01-01T10:00:00Z',
      ends_at: '2031-01-02',
      color: '#abc',
      font: '#000000',
      target_access_levels: [30, 40],
      target_path: '*/welcome',
      broadcast_type: 'notification',
      dismissable: true,
    });
    expectStatus(res, 201);
    const body = res.json();
    assert.deepEqual(
      [body.starts_at, body.ends_at, body.color, body.font, body.target_access_levels, body.target_path, body.broadcast_type, body.dismissable, body.active],
      ['2031-01-01T10:00:00.000Z', '2031-01-02T00:00:00.000Z', '#abc', '#000000', [30, 40], '*/welcome', 'notification', true, false],
    );
    const form = await t.post('/api/v4/broadcast_messages', { token: ROOT_TOKEN, form: 'message=hi&target_access_levels=10,20&dismissable=false' });
    expectStatus(form, 201);
    assert.deepEqual([form.json().target_access_levels, form.json().dismissable], [[10, 20], false]);
  });

  test('refusals: parameters, then the model', async () => {
    const count = async () => (await t.deps.db.selectFrom('broadcast_messages').select('id').execute()).length;
    const before = await count();
    expectError(await create({}), 400, { error: 'message is missing' });
    expectError(await create({ message: 'x', broadcast_type: 'popup' }), 400, { error: 'broadcast_type does not have a valid value' });
    expectError(await create({ message: 'x', target_access_levels: [60] }), 400, { error: 'target_access_levels does not have a valid value' });
    expectError(await create({ message: 'x', starts_at: 'tomorrow-ish' }), 400, { error: 'starts_at is invalid' });
    expectError(await create({ message: ' ' }), 400, { message: { message: ["can't be blank"] } });
    expectError(await create({ message: 'x', color: 'red', font: '#12' }), 400, { message: { color: ['must be a valid color code'], font: ['must be a valid color code'] } });
    assert.equal(await count(), before);
  });
});

describe('reading, changing and deleting', () => {
  test('anyone lists them newest first, paginated, and reads one', async () => {
    const first = (await create({ message: 'first' })).json();
    const second = (await create({ message: 'second' })).json();
    const res = await t.get('/api/v4/broadcast_messages', { query: { per_page: '2' } });
    expectStatus(res, 200);
    expectEntities(res.json(), BroadcastMessageEntity);
    assert.deepEqual(res.json().map((m: { id: number }) => m.id), [second.id, first.id]);
    assert.ok(Number(res.headers['x-total']) >= 2);
    const one = await t.get(`/api/v4/broadcast_messages/${first.id}`, { token: user.token });
    expectEntity(one.json(), BroadcastMessageEntity);
    assert.equal(one.json().message, 'first');
    expectError(await t.get('/api/v4/broadcast_messages/999999'), 404, { message: '404 Not found' });
    expectError(await t.get('/api/v4/broadcast_messages/abc'), 400, { error: 'id is invalid' });
  });

  test('PUT changes what is given and keeps the rest; DELETE answers 204, then 404', async () => {
    const made = (await create({ message: 'old', target_path: '/help' })).json();
    const res = await t.put(`/api/v4/broadcast_messages/${made.id}`, { token: ROOT_TOKEN, body: { color: '#444444', ends_at: '2040-01-01T00:00:00Z' } });
    expectStatus(res, 200);
    expectEntity(res.json(), BroadcastMessageEntity);
    assert.deepEqual([res.json().message, res.json().color, res.json().target_path, res.json().ends_at], ['old', '#444444', '/help', '2040-01-01T00:00:00.000Z']);
    expectError(await t.put(`/api/v4/broadcast_messages/${made.id}`, { token: ROOT_TOKEN, body: { message: '' } }), 400, { message: { message: ["can't be blank"] } });
    expectStatus(await t.del(`/api/v4/broadcast_messages/${made.id}`, { token: ROOT_TOKEN }), 204);
    expectError(await t.del(`/api/v4/broadcast_messages/${made.id}`, { token: ROOT_TOKEN }), 404, { message: '404 Not found' });
    expectError(await t.put(`/api/v4/broadcast_messages/${made.id}`, { token: ROOT_TOKEN, body: { color: '#444' } }), 404, { message: '404 Not found' });
  });

  test('only administrators write: 401 without a token, 403 for others', async () => {
    const made = (await create({ message: 'guarded' })).json();
    expectError(await t.post('/api/v4/broadcast_messages', { body: { message: 'x' } }), 401, { message: '401 Unauthorized' });
    expectError(await create({ message: 'x' }, user.token), 403, { message: '403 Forbidden' });
    expectError(await t.put(`/api/v4/broadcast_messages/${made.id}`, { token: user.token, body: { message: 'x' } }), 403, { message: '403 Forbidden' });
    expectError(await t.del(`/api/v4/broadcast_messages/${made.id}`, { token: user.token }), 403, { message: '403 Forbidden' });
    expectError(await t.del(`/api/v4/broadcast_messages/${made.id}`), 401, { message: '401 Unauthorized' });
    assert.equal((await t.get(`/api/v4/broadcast_messages/${made.id}`)).json().message, 'guarded');
  });
});
