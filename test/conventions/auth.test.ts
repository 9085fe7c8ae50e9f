// Token kinds and their precedence (notes §3.1, §3.2): where a credential may be sent, which one
// wins, and the exact answers to unknown, expired, revoked, impersonation and blocked cases.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectError, expectStatus } from '../matchers.ts';
import { issueToken, revokeToken } from '../../src/modules/access-tokens/access-tokens.service.ts';
import { UserAdminEntity, UserSelfEntity } from '../../src/modules/users/users.schemas.ts';
import { systemContext } from '../../src/core/context.ts';

const UNAUTHORIZED = { message: '401 Unauthorized' };
const EXPIRED = { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' };
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };
const IMPERSONATION_DISABLED = { error: 'invalid_token', error_description: 'Token is an impersonation token but impersonation was disabled.' };

function expectInvalidToken(res: Awaited<ReturnType<TestApp['get']>>, body: { error: string; error_description: string }) {
  expectError(res, 401, body);
  assert.equal(
    res.headers['www-authenticate'],
    `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${body.error_description}"`,
  );
}

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

let t: TestApp;
let alice: TestUser;
let bob: TestUser;

async function oauthToken(username: string, scope?: string): Promise<string> {
  const res = await t.post('/oauth/token', { body: { grant_type: 'password', username, password: PASSWORD, ...(scope ? { scope } : {}) } });
  expectStatus(res, 200);
  return res.json().access_token;
}

before(async () => {
  t = await createTestApp();
  alice = await t.user({ username: 'alice' });
  bob = await t.user({ username: 'bob' });
});
after(() => t.close());

describe('where a personal token may be sent', () => {
  test('PRIVATE-TOKEN header', async () => {
    const res = await t.get('/api/v4/user', { headers: { 'private-token': alice.token } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().username, 'alice');
  });

  test('private_token query parameter', async () => {
    const res = await t.get('/api/v4/user', { query: { private_token: alice.token } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().username, 'alice');
  });

  test('Authorization: Bearer', async () => {
    const res = await t.get('/api/v4/user', { headers: { authorization: `Bearer ${alice.token}` } });
    expectStatus(res, 200);
    expectEntity(res.json(), UserSelfEntity);
    assert.equal(res.json().username, 'alice');
  });

  test('access_token parameter falls back to the personal token', async () => {
    const res = await t.get('/api/v4/user', { query: { access_token: alice.token } });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'alice');
  });

  test('private_token in a POST body', async () => {
    const res = await t.post('/api/v4/users', { body: { private_token: ROOT_TOKEN, username: 'bodytoken', email: 'bodytoken@example.com', name: 'Body', password: PASSWORD } });
    expectStatus(res, 201);
    expectEntity(res.json(), UserAdminEntity);
  });

  test('the administrator root reads the administrator form', async () => {
    const res = await t.get('/api/v4/user', { token: ROOT_TOKEN });
    expectStatus(res, 200);
    expectEntity(res.json(), UserAdminEntity);
    assert.equal(res.json().is_admin, true);
  });
});

describe('precedence', () => {
  test('private_token parameter beats the PRIVATE-TOKEN header', async () => {
    const res = await t.get('/api/v4/user', { query: { private_token: alice.token }, headers: { 'private-token': bob.token } });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'alice');
  });

  test('an unknown private_token parameter is not rescued by a valid header', async () => {
    expectError(await t.get('/api/v4/user', { query: { private_token: 'glpat-unknown-0000000000' }, headers: { 'private-token': bob.token } }), 401, UNAUTHORIZED);
  });

  test('PRIVATE-TOKEN beats a personal token sent as Bearer', async () => {
    const res = await t.get('/api/v4/user', { headers: { 'private-token': alice.token, authorization: `Bearer ${bob.token}` } });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'alice');
  });

  test('a valid OAuth token beats a personal token', async () => {
    const oauth = await oauthToken('bob');
    const viaHeader = await t.get('/api/v4/user', { headers: { authorization: `Bearer ${oauth}`, 'private-token': alice.token } });
    expectStatus(viaHeader, 200);
    assert.equal(viaHeader.json().username, 'bob');
    const viaParam = await t.get('/api/v4/user', { query: { access_token: oauth, private_token: alice.token } });
    expectStatus(viaParam, 200);
    assert.equal(viaParam.json().username, 'bob');
  });
});

describe('unknown tokens', () => {
  test('401 on a route that requires authentication', async () => {
    expectError(await t.get('/api/v4/user', { token: 'glpat-unknown-0000000000' }), 401, UNAUTHORIZED);
  });

  test('401 even on a route that allows anonymous callers', async () => {
    const anonymous = await t.get('/api/v4/users', { query: { username: 'alice' } });
    expectStatus(anonymous, 200);
    expectError(await t.get('/api/v4/users', { query: { username: 'alice' }, token: 'glpat-unknown-0000000000' }), 401, UNAUTHORIZED);
    expectError(await t.get('/api/v4/users', { query: { username: 'alice' }, headers: { authorization: 'Bearer not-a-token' } }), 401, UNAUTHORIZED);
  });

  test('401 for a write, and nothing is written', async () => {
    const before = await t.count('users');
    expectError(await t.post('/api/v4/users', { token: 'glpat-unknown-0000000000', body: { username: 'x', email: 'x@example.com', name: 'x', password: PASSWORD } }), 401, UNAUTHORIZED);
    assert.equal(await t.count('users'), before);
  });

  test('anonymous callers on an authenticated route get 401', async () => {
    expectError(await t.get('/api/v4/user'), 401, UNAUTHORIZED);
    expectError(await t.get('/api/v4/version'), 401, UNAUTHORIZED);
  });
});

describe('expiry and revocation', () => {
  test('a token expiring today is expired, with WWW-Authenticate', async () => {
    const { token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'today', scopes: ['api'], expiresAt: day(0) }, alice.user);
    expectInvalidToken(await t.get('/api/v4/user', { token }), EXPIRED);
    expectInvalidToken(await t.get('/api/v4/users', { query: { username: 'alice' }, token }), EXPIRED);
  });

  test('a token that expired yesterday is expired', async () => {
    const { token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'past', scopes: ['api'], expiresAt: day(-1) }, alice.user);
    expectInvalidToken(await t.get('/api/v4/user', { headers: { authorization: `Bearer ${token}` } }), EXPIRED);
  });

  test('a token expiring tomorrow still works', async () => {
    const { token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'future', scopes: ['api'], expiresAt: day(1) }, alice.user);
    expectStatus(await t.get('/api/v4/user', { token }), 200);
  });

  test('a revoked token is refused with the revoked body', async () => {
    const { row, token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'revoked', scopes: ['api'] }, alice.user);
    expectStatus(await t.get('/api/v4/user', { token }), 200);
    await revokeToken(systemContext(t.deps), row.id);
    expectInvalidToken(await t.get('/api/v4/user', { token }), REVOKED);
  });

  test('a token both expired and revoked reads as expired', async () => {
    const { row, token } = await issueToken(systemContext(t.deps), { userId: alice.user.id, name: 'both', scopes: ['api'], expiresAt: day(-3) }, alice.user);
    await revokeToken(systemContext(t.deps), row.id);
    expectInvalidToken(await t.get('/api/v4/user', { token }), EXPIRED);
  });
});

describe('impersonation tokens', () => {
  test('authenticate as their user while impersonation is enabled', async () => {
    const create = await t.post(`/api/v4/users/${alice.user.id}/impersonation_tokens`, { token: ROOT_TOKEN, body: { name: 'imp', scopes: ['api'] } });
    expectStatus(create, 201);
    const res = await t.get('/api/v4/user', { token: create.json().token });
    expectStatus(res, 200);
    assert.equal(res.json().username, 'alice');
  });

  test('are refused with the impersonation body when impersonation is disabled', async () => {
    const off = await createTestApp({ QUARRY_IMPERSONATION_ENABLED: 'false' });
    try {
      const carol = await off.user({ username: 'carol' });
      const { token } = await issueToken(systemContext(off.deps), { userId: carol.user.id, name: 'imp', scopes: ['api'], impersonation: true }, carol.user);
      expectInvalidToken(await off.get('/api/v4/user', { token }), IMPERSONATION_DISABLED);
      // Carol's own personal token is unaffected.
      expectStatus(await off.get('/api/v4/user', { token: carol.token }), 200);
    } finally {
      await off.close();
    }
  });
});

describe('blocked users', () => {
  test('a blocked user with a valid token gets 403 with the reason', async () => {
    const dave = await t.user({ username: 'dave' });
    expectStatus(await t.post(`/api/v4/users/${dave.user.id}/block`, { token: ROOT_TOKEN }), 201);
    expectError(await t.get('/api/v4/user', { token: dave.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
    expectError(await t.get('/api/v4/users', { query: { username: 'alice' }, token: dave.token }), 403, { message: '403 Forbidden - Your account has been blocked.' });
    expectStatus(await t.post(`/api/v4/users/${dave.user.id}/unblock`, { token: ROOT_TOKEN }), 201);
    expectStatus(await t.get('/api/v4/user', { token: dave.token }), 200);
  });

  test('a deactivated user gets the deactivation reason', async () => {
    const erin = await t.user({ username: 'erin' });
    await t.deps.db.updateTable('users').set({ state: 'deactivated' }).where('id', '=', erin.user.id).execute();
    expectError(await t.get('/api/v4/user', { token: erin.token }), 403, {
      message:
        '403 Forbidden - Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at http://quarry.test',
    });
  });
});

describe('secrets are stored only as digests', () => {
  test('no table holds the text of a personal, impersonation, OAuth or refresh token', async () => {
    const pat = await t.post(`/api/v4/users/${alice.user.id}/personal_access_tokens`, { token: ROOT_TOKEN, body: { name: 'digest', scopes: ['api'] } });
    expectStatus(pat, 201);
    const imp = await t.post(`/api/v4/users/${alice.user.id}/impersonation_tokens`, { token: ROOT_TOKEN, body: { name: 'digest', scopes: ['api'] } });
    expectStatus(imp, 201);
    const oauth = await t.post('/oauth/token', { body: { grant_type: 'password', username: 'alice', password: PASSWORD } });
    expectStatus(oauth, 200);
    const secrets = [pat.json().token, imp.json().token, oauth.json().access_token, oauth.json().refresh_token, ROOT_TOKEN, alice.token];

    const tables = await Promise.all([
      t.deps.db.selectFrom('personal_access_tokens').selectAll().execute(),
      t.deps.db.selectFrom('oauth_access_tokens').selectAll().execute(),
      t.deps.db.selectFrom('web_sessions').selectAll().execute(),
      t.deps.db.selectFrom('users').selectAll().execute(),
    ]);
    const dump = JSON.stringify(tables);
    for (const secret of secrets) assert.ok(!dump.includes(secret), 'a token is stored in clear');

    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    const digests = new Set(tables[0].map((r) => r.token_digest));
    for (const secret of [pat.json().token, imp.json().token, ROOT_TOKEN, alice.token]) assert.ok(digests.has(sha(secret)));
    assert.ok(tables[1].some((r) => r.token_digest === sha(oauth.json().access_token) && r.refresh_token_digest === sha(oauth.json().refresh_token)));
  });

  test('personal tokens have the platform prefix and 20 URL-safe characters', async () => {
    const res = await t.post(`/api/v4/users/${alice.user.id}/personal_access_tokens`, { token: ROOT_TOKEN, body: { name: 'format', scopes: ['api'] } });
    assert.match(res.json().token, /^glpat-[A-Za-z0-9_-]{20}$/);
  });
});

describe('use is recorded', () => {
  test('last_used_at and last_activity_on are set by a request', async () => {
    const frank = await t.user({ username: 'frank' });
    const before = await t.deps.db.selectFrom('personal_access_tokens').select('last_used_at').where('user_id', '=', frank.user.id).executeTakeFirstOrThrow();
    assert.equal(before.last_used_at, null);
    expectStatus(await t.get('/api/v4/user', { token: frank.token }), 200);
    const token = await t.deps.db.selectFrom('personal_access_tokens').select('last_used_at').where('user_id', '=', frank.user.id).executeTakeFirstOrThrow();
    assert.ok(token.last_used_at);
    const user = await t.deps.db.selectFrom('users').select('last_activity_on').where('id', '=', frank.user.id).executeTakeFirstOrThrow();
    assert.equal(user.last_activity_on, new Date().toISOString().slice(0, 10));
  });
});
