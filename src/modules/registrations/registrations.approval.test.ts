// Sign-ups awaiting approval: an administrator approves or rejects them through the API, and the
// address they signed up with is told by mail, sent by a job enqueued with the decision.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setInstanceSettings } from '../../../test/factories.ts';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectError, expectStatus } from '../../../test/matchers.ts';
import { type TestMailServer, startMailServer } from '../../../test/smtp.ts';

let t: TestApp;
let smtp: TestMailServer;
let alice: TestUser;

before(async () => {
  smtp = await startMailServer();
  t = await createTestApp({ QUARRY_SMTP_URL: smtp.url });
  alice = await t.user();
  await setInstanceSettings(t, { require_admin_approval_after_user_signup: true, send_user_confirmation_email: false });
});
after(async () => {
  await t.close();
  await smtp.close();
});

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Signs up on the web and answers the account, which waits for approval. */
async function signUp(username: string) {
  const res = await t.post('/users/sign_up', { form: form({ 'user[name]': `${username} Name`, 'user[username]': username, 'user[email]': `${username}@example.com`, 'user[password]': PASSWORD }) });
  expectStatus(res, 200);
  const user = await t.deps.db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirstOrThrow();
  assert.equal(user.state, 'blocked_pending_approval');
  return user;
}

describe('POST /users/:id/approve', () => {
  test('the approved user is mailed a welcome with the sign-in link', async () => {
    const user = await signUp('approved');
    smtp.received.length = 0;
    expectStatus(await t.post(`/api/v4/users/${user.id}/approve`, { token: ROOT_TOKEN }), 201);
    assert.equal(smtp.received.length, 0, 'nothing is sent before the job runs');
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['users.send_approval', true]]);
    const [mail] = smtp.received;
    assert.deepEqual(mail.to, ['approved@example.com']);
    assert.equal(mail.subject, 'Welcome to Quarry!');
    assert.match(mail.text, /Hi approved Name!/);
    assert.match(mail.text, /http:\/\/quarry\.test\/users\/sign_in/);
  });
});

describe('POST /users/:id/reject', () => {
  test('who may call it, in the platform order: 401, 404, 403, then 409 for an account not waiting', async () => {
    const user = await signUp('refused');
    expectError(await t.post(`/api/v4/users/${user.id}/reject`), 401, { message: '401 Unauthorized' });
    expectError(await t.post('/api/v4/users/999999/reject', { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    expectError(await t.post(`/api/v4/users/${user.id}/reject`, { token: alice.token }), 403, { message: 'You are not allowed to reject a user' });
    expectError(await t.post(`/api/v4/users/${alice.user.id}/reject`, { token: ROOT_TOKEN }), 409, { message: 'User does not have a pending request' });
    expectStatus(await t.get(`/api/v4/users/${alice.user.id}`, { token: ROOT_TOKEN }), 200);
  });

  test('deletes the account and mails the address it signed up with', async () => {
    const user = await signUp('rejected');
    smtp.received.length = 0;
    const res = await t.post(`/api/v4/users/${user.id}/reject`, { token: ROOT_TOKEN });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), { message: 'Success' });
    expectError(await t.get(`/api/v4/users/${user.id}`, { token: ROOT_TOKEN }), 404, { message: '404 User Not Found' });
    expectStatus(await t.post('/users/sign_in', { form: form({ 'user[login]': 'rejected', 'user[password]': PASSWORD }) }), 401);
    assert.deepEqual((await t.runJobs()).map((o) => [o.kind, o.ok]), [['users.send_rejection', true]]);
    const [mail] = smtp.received;
    assert.deepEqual(mail.to, ['rejected@example.com']);
    assert.equal(mail.subject, 'Quarry account request rejected');
    assert.match(mail.text, /Hi rejected Name,/);
    // The username is free again.
    await signUp('rejected');
  });
});
