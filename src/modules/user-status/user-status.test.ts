// Users' statuses (/user/status, /users/:user_id/status): setting and clearing, the default emoji,
// availability, clear_status_after and the status that disappears when its time comes, the
// model's refusals, and who may read whose status.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setInstanceSettings } from '../../../test/factories.ts';
import { type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { UserStatusEntity } from './user-status.schemas.ts';
import { removeExpiredStatuses } from './user-status.service.ts';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
const NONE = { emoji: null, message: null, availability: null, message_html: '', clear_status_at: null };

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
});
after(() => t.close());

async function setStatus(user: TestUser, body: Record<string, unknown>) {
  const res = await t.put('/api/v4/user/status', { token: user.token, body });
  expectStatus(res, 200);
  expectEntity(res.json(), UserStatusEntity);
  return res.json();
}

describe('PUT and GET /user/status', () => {
  test('no status: every field null, an empty message_html', async () => {
    const res = await t.get('/api/v4/user/status', { token: bob.token });
    expectStatus(res, 200);
    expectEntity(res.json(), UserStatusEntity);
    assert.deepEqual(res.json(), NONE);
  });

  test('sets emoji, message and availability; the message is HTML escaped in message_html', async () => {
    const body = await setStatus(alice, { emoji: 'coffee', message: 'I crave <coffee> & tea', availability: 'busy' });
    assert.deepEqual(body, { emoji: 'coffee', message: 'I crave <coffee> & tea', availability: 'busy', message_html: 'I crave &lt;coffee&gt; &amp; tea', clear_status_at: null });
    assert.deepEqual((await t.get('/api/v4/user/status', { token: alice.token })).json(), body);
  });

  test('a message alone takes the speech_balloon emoji; what PUT leaves out is cleared', async () => {
    const body = await setStatus(alice, { message: 'Out' });
    assert.deepEqual(body, { emoji: 'speech_balloon', message: 'Out', availability: 'not_set', message_html: 'Out', clear_status_at: null });
  });

  test('neither emoji, message nor availability clears the status', async () => {
    await setStatus(alice, { emoji: 'tada' });
    assert.deepEqual(await setStatus(alice, {}), NONE);
    await setStatus(alice, { emoji: 'tada' });
    // No body at all, as a client clearing its status sends.
    const bare = await t.put('/api/v4/user/status', { token: alice.token });
    expectStatus(bare, 200);
    assert.deepEqual(bare.json(), NONE);
    assert.deepEqual((await t.get('/api/v4/user/status', { token: alice.token })).json(), NONE);
    assert.equal(await t.deps.db.selectFrom('user_statuses').select('user_id').where('user_id', '=', alice.user.id).executeTakeFirst(), undefined);
  });

  test('clear_status_after sets clear_status_at; the status disappears when that time has come', async () => {
    const before = Date.now();
    const body = await setStatus(alice, { message: 'Lunch', clear_status_after: '30_minutes' });
    const at = Date.parse(body.clear_status_at);
    assert.ok(at >= before + 30 * 60_000 - 1000 && at <= Date.now() + 30 * 60_000 + 1000, body.clear_status_at);
    // Time passes: the status is gone for readers, and the periodic clean-up removes it.
    await t.deps.db.updateTable('user_statuses').set({ clear_status_at: new Date(Date.now() - 1000).toISOString() }).where('user_id', '=', alice.user.id).execute();
    assert.deepEqual((await t.get('/api/v4/user/status', { token: alice.token })).json(), NONE);
    assert.deepEqual((await t.get(`/api/v4/users/${alice.user.id}/status`)).json(), NONE);
    assert.equal(await removeExpiredStatuses(t.deps.db, new Date()), 1);
  });

  test('refusals: an unknown clear_status_after, a message too long, an emoji that is no emoji name', async () => {
    expectError(await t.put('/api/v4/user/status', { token: alice.token, body: { message: 'x', clear_status_after: '2_hours' } }), 400, {
      error: 'clear_status_after does not have a valid value',
    });
    expectError(await t.put('/api/v4/user/status', { token: alice.token, body: { message: 'x'.repeat(101) } }), 400, {
      message: { message: ['is too long (maximum is 100 characters)'] },
    });
    expectError(await t.put('/api/v4/user/status', { token: alice.token, body: { emoji: 'Not An Emoji!' } }), 400, { message: { emoji: ['does not exist'] } });
  });

  test('an availability that is none is ignored', async () => {
    assert.equal((await setStatus(alice, { message: 'Hi', availability: 'away' })).availability, 'not_set');
  });

  test('anonymous callers are refused; a read_user token reads but does not write', async () => {
    expectError(await t.get('/api/v4/user/status'), 401, { message: '401 Unauthorized' });
    expectError(await t.put('/api/v4/user/status', { body: { message: 'x' } }), 401, { message: '401 Unauthorized' });
    const reader = await t.user({ username: 'reader' }, ['read_user']);
    expectStatus(await t.get('/api/v4/user/status', { token: reader.token }), 200);
    expectStatus(await t.put('/api/v4/user/status', { token: reader.token, body: { message: 'x' } }), 403);
  });
});

describe('GET /users/:user_id/status', () => {
  test('by id or username, anonymous callers too', async () => {
    const status = await setStatus(bob, { emoji: 'palm_tree', message: 'Away', availability: 'busy' });
    for (const ref of [String(bob.user.id), 'bob', 'BOB']) {
      const res = await t.get(`/api/v4/users/${ref}/status`);
      expectStatus(res, 200);
      expectEntity(res.json(), UserStatusEntity);
      assert.deepEqual(res.json(), status);
    }
  });

  test('an unknown user is 404; with public visibility restricted, anonymous callers too', async () => {
    expectError(await t.get('/api/v4/users/99999/status'), 404, { message: '404 User Not Found' });
    expectError(await t.get('/api/v4/users/nobody/status'), 404, { message: '404 User Not Found' });
    await setInstanceSettings(t, { restricted_visibility_levels: ['public'] });
    try {
      expectError(await t.get(`/api/v4/users/${bob.user.id}/status`), 404, { message: '404 User Not Found' });
      expectStatus(await t.get(`/api/v4/users/${bob.user.id}/status`, { token: alice.token }), 200);
    } finally {
      await setInstanceSettings(t, { restricted_visibility_levels: [] });
    }
  });
});
