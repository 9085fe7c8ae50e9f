// Users' further email addresses (/user/emails, /users/:id/emails): the entity, uniqueness against
// every user's primary and further addresses in the platform's words, confirmation (a mail, or
// skipped by administrators), and the errors of each route.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntities, expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { digest } from '../../core/auth/secrets.ts';
import { EmailEntity } from './emails.schemas.ts';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
const TAKEN = { message: { email: ['has already been taken'] } };

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice', email: 'alice@example.com' });
  bob = await t.user({ username: 'bob', email: 'bob@example.com' });
});
after(() => t.close());

async function addEmail(user: TestUser, email: string) {
  const res = await t.post('/api/v4/user/emails', { token: user.token, body: { email } });
  expectStatus(res, 201);
  expectEntity(res.json(), EmailEntity);
  return res.json();
}

describe('POST /user/emails', () => {
  test('adds an unconfirmed address, kept trimmed and in lower case, and mails a confirmation link', async () => {
    const body = await addEmail(alice, '  Alice.Work@Example.COM ');
    assert.deepEqual(body, { id: body.id, email: 'alice.work@example.com', confirmed_at: null });
    const outcomes = await t.runJobs();
    assert.ok(outcomes.length > 0);
    const stored = await t.deps.db.selectFrom('emails').selectAll().where('id', '=', body.id).executeTakeFirstOrThrow();
    assert.notEqual(stored.confirmation_token, null);
    assert.notEqual(stored.confirmation_sent_at, null);
  });

  test('an address any user has, as primary or further address, in any case, is taken', async () => {
    await addEmail(bob, 'bob.second@example.com');
    const before = await t.count('emails');
    expectError(await t.post('/api/v4/user/emails', { token: alice.token, body: { email: 'BOB@example.com' } }), 400, TAKEN);
    expectError(await t.post('/api/v4/user/emails', { token: alice.token, body: { email: 'bob.second@example.com' } }), 400, TAKEN);
    expectError(await t.post('/api/v4/user/emails', { token: alice.token, body: { email: 'alice@example.com' } }), 400, TAKEN);
    assert.equal(await t.count('emails'), before);
  });

  test('a missing, blank or malformed address', async () => {
    expectError(await t.post('/api/v4/user/emails', { token: alice.token, body: {} }), 400, { error: 'email is missing' });
    expectError(await t.post('/api/v4/user/emails', { token: alice.token, body: { email: ' ' } }), 400, { message: { email: ["can't be blank"] } });
    expectError(await t.post('/api/v4/user/emails', { token: alice.token, body: { email: 'not an address' } }), 400, { message: { email: ['is invalid'] } });
  });
});

describe('GET and DELETE /user/emails', () => {
  test('lists the caller’s addresses oldest first, paginated; shows and deletes one', async () => {
    const carol = await t.user({ username: 'carol' });
    const first = await addEmail(carol, 'carol1@example.com');
    const second = await addEmail(carol, 'carol2@example.com');
    const list = await t.get('/api/v4/user/emails', { token: carol.token });
    expectStatus(list, 200);
    expectEntities(list.json(), EmailEntity);
    assert.deepEqual(list.json(), [first, second]);
    const page = await t.get('/api/v4/user/emails', { token: carol.token, query: { per_page: '1' } });
    assert.equal(page.headers['x-total'], '2');
    assert.equal(page.headers['x-next-page'], '2');
    expectEntity((await t.get(`/api/v4/user/emails/${first.id}`, { token: carol.token })).json(), EmailEntity);
    expectError(await t.get(`/api/v4/user/emails/${first.id}`, { token: alice.token }), 404, { message: '404 Email Not Found' });
    expectError(await t.del(`/api/v4/user/emails/${first.id}`, { token: alice.token }), 404, { message: '404 Email Not Found' });
    expectStatus(await t.del(`/api/v4/user/emails/${first.id}`, { token: carol.token }), 204);
    expectError(await t.get(`/api/v4/user/emails/${first.id}`, { token: carol.token }), 404, { message: '404 Email Not Found' });
    expectError(await t.get('/api/v4/user/emails/x', { token: carol.token }), 400, { error: 'email_id is invalid' });
    // Removed, the address is free again.
    await addEmail(alice, 'carol1@example.com');
  });

  test('anonymous callers are refused', async () => {
    expectError(await t.get('/api/v4/user/emails'), 401, { message: '401 Unauthorized' });
    expectError(await t.post('/api/v4/user/emails', { body: { email: 'x@example.com' } }), 401, { message: '401 Unauthorized' });
  });
});

describe('/users/:id/emails, for administrators', () => {
  test('adds an address, confirmed with skip_confirmation; lists and deletes', async () => {
    const confirmed = await t.post(`/api/v4/users/${bob.user.id}/emails`, { token: ROOT_TOKEN, body: { email: 'bob.admin@example.com', skip_confirmation: true } });
    expectStatus(confirmed, 201);
    expectEntity(confirmed.json(), EmailEntity);
    assert.notEqual(confirmed.json().confirmed_at, null);
    const unconfirmed = await t.post(`/api/v4/users/${bob.user.id}/emails`, { token: ROOT_TOKEN, body: { email: 'bob.later@example.com' } });
    expectStatus(unconfirmed, 201);
    assert.equal(unconfirmed.json().confirmed_at, null);
    const list = await t.get(`/api/v4/users/${bob.user.id}/emails`, { token: ROOT_TOKEN });
    expectStatus(list, 200);
    expectEntities(list.json(), EmailEntity);
    assert.ok(list.json().some((e: { id: number }) => e.id === confirmed.json().id));
    expectStatus(await t.del(`/api/v4/users/${bob.user.id}/emails/${confirmed.json().id}`, { token: ROOT_TOKEN }), 204);
    expectError(await t.del(`/api/v4/users/${bob.user.id}/emails/${confirmed.json().id}`, { token: ROOT_TOKEN }), 404, { message: '404 Email Not Found' });
    expectError(await t.del(`/api/v4/users/${alice.user.id}/emails/${unconfirmed.json().id}`, { token: ROOT_TOKEN }), 404, { message: '404 Email Not Found' });
  });

  test('errors: unknown user 404, a taken address 400, non-administrators 403', async () => {
    expectError(await t.get('/api/v4/users/99999/emails', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    expectError(await t.post('/api/v4/users/99999/emails', { token: ROOT_TOKEN, body: { email: 'nobody@example.com' } }), 404, { message: '404 User Not Found' });
    expectError(await t.post(`/api/v4/users/${bob.user.id}/emails`, { token: ROOT_TOKEN, body: { email: 'alice@example.com' } }), 400, TAKEN);
    expectError(await t.post(`/api/v4/users/${bob.user.id}/emails`, { token: ROOT_TOKEN, body: {} }), 400, { error: 'email is missing' });
    expectError(await t.get(`/api/v4/users/${bob.user.id}/emails`, { token: bob.token }), 403, { message: '403 Forbidden' });
    expectError(await t.post(`/api/v4/users/${bob.user.id}/emails`, { token: bob.token, body: { email: 'b@example.com' } }), 403, { message: '403 Forbidden' });
    expectError(await t.get(`/api/v4/users/${bob.user.id}/emails`), 401, { message: '401 Unauthorized' });
  });
});

describe('users’ primary addresses and further ones', () => {
  test('a user cannot be created (409), nor changed (as PUT /users/:id answers conflicts, 404), to another user’s further address', async () => {
    await addEmail(bob, 'bob.further@example.com');
    const body = { username: 'newcomer', name: 'N', email: 'BOB.further@example.com', password: 'correct-horse-9' };
    expectError(await t.post('/api/v4/users', { token: ROOT_TOKEN, body }), 409, { message: 'Email has already been taken' });
    expectError(await t.put(`/api/v4/users/${alice.user.id}`, { token: ROOT_TOKEN, body: { email: 'bob.further@example.com' } }), 404, { message: 'Email has already been taken' });
    // One's own further address may become one's primary one.
    expectStatus(await t.put(`/api/v4/users/${bob.user.id}`, { token: ROOT_TOKEN, body: { email: 'bob.further@example.com', skip_reconfirmation: true } }), 200);
  });
});

describe('GET /-/profile/emails/confirmation', () => {
  test('the mail’s link confirms the address once; another token is invalid', async () => {
    const added = await addEmail(alice, 'alice.confirm@example.com');
    await t.deps.db.updateTable('emails').set({ confirmation_token: digest('the-mailed-token') }).where('id', '=', added.id).execute();
    const page = await t.get('/-/profile/emails/confirmation', { query: { confirmation_token: 'the-mailed-token' } });
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /successfully confirmed/);
    const shown = (await t.get(`/api/v4/user/emails/${added.id}`, { token: alice.token })).json();
    assert.notEqual(shown.confirmed_at, null);
    assert.equal((await t.get('/-/profile/emails/confirmation', { query: { confirmation_token: 'the-mailed-token' } })).statusCode, 404);
    assert.equal((await t.get('/-/profile/emails/confirmation')).statusCode, 404);
  });
});
