// Sudo (spec Part 1 §5, §7; notes §3.4): every check in the platform's order with its body, the
// header and parameter forms, ID or case-insensitive username, and the request then running as
// the target.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';
import { UserAdminEntity, UserSelfEntity } from '../../src/modules/users/users.schemas.ts';

const SCOPE_BODY = {
  error: 'insufficient_scope',
  error_description: 'The request requires higher privileges than provided by the access token.',
  scope: 'sudo',
};

let t: TestApp;
let target: TestUser;
let plain: TestUser;
let admin: TestUser;
let adminNoSudo: TestUser;
let adminSudoOnly: TestUser;

async function signIn(login: string): Promise<string> {
  const res = await t.post('/users/sign_in', { form: `user[login]=${login}&user[password]=${PASSWORD}` });
  expectStatus(res, 302);
  const cookie = res.cookies.find((c) => c.name === '_service_session');
  assert.ok(cookie);
  return `_service_session=${cookie.value}`;
}

before(async () => {
  t = await createTestApp();
  target = await t.user({ username: 'Target' });
  plain = await t.user({ username: 'plain' }, ['api']);
  admin = await t.user({ username: 'boss', admin: true }, ['api', 'sudo']);
  adminNoSudo = await t.user({ username: 'boss2', admin: true }, ['api']);
  adminSudoOnly = await t.user({ username: 'boss3', admin: true }, ['sudo']);
});
after(() => t.close());

describe('the checks, in order', () => {
  test('1. no authenticated user → 401', async () => {
    expectError(await t.get('/api/v4/user', { headers: { sudo: 'Target' } }), 401, { message: '401 Unauthorized' });
    // Even where anonymous callers are otherwise welcome.
    expectError(await t.get('/api/v4/users', { query: { username: 'Target', sudo: 'Target' } }), 401, { message: '401 Unauthorized' });
  });

  test('2. not an administrator → 403 "Must be admin to use sudo", before the scope check', async () => {
    expectError(await t.get('/api/v4/user', { token: plain.token, headers: { sudo: 'Target' } }), 403, { message: '403 Forbidden - Must be admin to use sudo' });
  });

  test('3. an administrator signed in through a session → 403', async () => {
    const cookie = await signIn('boss');
    expectError(await t.get('/api/v4/user', { headers: { cookie, sudo: 'Target' } }), 403, {
      message: '403 Forbidden - Must be authenticated using an OAuth or personal access token to use sudo',
    });
    // The same session without sudo works.
    expectStatus(await t.get('/api/v4/user', { headers: { cookie } }), 200);
  });

  test('4. a token without the sudo scope → 403 insufficient_scope "sudo"', async () => {
    expectError(await t.get('/api/v4/user', { token: adminNoSudo.token, headers: { sudo: 'Target' } }), 403, SCOPE_BODY);
  });

  test('5. an unknown target → 404 naming the value as given', async () => {
    expectError(await t.get('/api/v4/user', { token: admin.token, headers: { sudo: 'Nobody' } }), 404, {
      message: "404 User with ID or username 'Nobody' Not Found",
    });
    expectError(await t.get('/api/v4/user', { token: admin.token, query: { sudo: '99999' } }), 404, {
      message: "404 User with ID or username '99999' Not Found",
    });
  });
});

describe('a successful sudo', () => {
  test('Sudo header with a username in any case runs the request as the target', async () => {
    const res = await t.get('/api/v4/user', { token: admin.token, headers: { sudo: 'tArGeT' } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().id, target.user.id);
  });

  test('sudo query parameter with an ID', async () => {
    const res = await t.get('/api/v4/user', { token: admin.token, query: { sudo: String(target.user.id) } });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'Target');
  });

  test('the parameter wins over the header', async () => {
    const res = await t.get('/api/v4/user', { token: admin.token, query: { sudo: 'plain' }, headers: { sudo: 'Target' } });
    assert.equal(res.json().username, 'plain');
  });

  test('the target\'s permissions apply: a non-administrator target may not create users', async () => {
    const before = await t.count('users');
    const res = await t.post('/api/v4/users', {
      token: admin.token,
      headers: { sudo: 'Target' },
      body: { username: 'bysudo', email: 'bysudo@example.com', name: 'x', password: PASSWORD },
    });
    expectError(res, 403, { message: '403 Forbidden' });
    assert.equal(await t.count('users'), before);
  });

  test('sudo as another administrator keeps administrator rights', async () => {
    const res = await t.get('/api/v4/user', { token: admin.token, headers: { sudo: 'root' } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserAdminEntity);
    assert.equal(res.json().id, 1);
  });

  test('sudo skips the endpoint scope check: a sudo-only token works only with sudo', async () => {
    expectError(await t.get('/api/v4/user', { token: adminSudoOnly.token }), 403, {
      error: 'insufficient_scope',
      error_description: 'The request requires higher privileges than provided by the access token.',
      scope: 'read_user api read_api',
    });
    const res = await t.get('/api/v4/user', { token: adminSudoOnly.token, headers: { sudo: 'Target' } });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'Target');
    const write = await t.post(`/api/v4/users/${target.user.id}/block`, { token: adminSudoOnly.token, query: { sudo: 'root' } });
    expectStatus(write, 201);
    expectStatus(await t.post(`/api/v4/users/${target.user.id}/unblock`, { token: ROOT_TOKEN }), 201);
  });

  test('an OAuth token with the sudo scope may use sudo', async () => {
    const grant = await t.post('/oauth/token', { body: { grant_type: 'password', username: 'boss', password: PASSWORD, scope: 'api sudo' } });
    expectStatus(grant, 200);
    const res = await t.get('/api/v4/user', { headers: { authorization: `Bearer ${grant.json().access_token}`, sudo: 'Target' } });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'Target');
  });

  test('the sudo parameter is echoed into pagination links', async () => {
    const res = await t.get('/api/v4/users', { token: admin.token, query: { sudo: 'root', per_page: '1' } });
    expectStatus(res, 200);
    assert.match(String(res.headers.link), /[?&]sudo=root(&|>)/);
  });
});

describe('the root token', () => {
  test('carries sudo', async () => {
    const res = await t.get('/api/v4/user', { token: ROOT_TOKEN, headers: { sudo: String(target.user.id) } });
    expectStatus(res, 200);
    assert.equal(res.json().id, target.user.id);
  });
});
