// OAuth 2: the password and refresh_token grants, using the tokens, their expiry (on a test
// clock), revocation and token info; Doorkeeper's bodies throughout.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { UserSelfEntity } from '../users/users.schemas.ts';
import { OauthErrorEntity, OauthTokenEntity, OauthTokenInfoEntity } from './oauth.schemas.ts';

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};
const INVALID_SCOPE = { error: 'invalid_scope', error_description: 'The requested scope is invalid, unknown, or malformed.' };
const EXPIRED = { error: 'invalid_token', error_description: 'Token is expired. You can either do re-authorization or token refresh.' };
const REVOKED = { error: 'invalid_token', error_description: 'Token was revoked. You have to re-authorize from the user.' };

let t: TestApp;
let clock = Date.parse('2030-06-01T12:00:00.000Z');
let alice: TestUser;

const grant = (body: Record<string, string>) => t.post('/oauth/token', { body });
const passwordGrant = (extra: Record<string, string> = {}) => grant({ grant_type: 'password', username: 'alice', password: PASSWORD, ...extra });
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

before(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
  alice = await t.user({ username: 'alice', email: 'Alice@Example.com' });
});
after(() => t.close());

describe('password grant', () => {
  test('JSON body: 200 with a bearer token pair, no-store', async () => {
    const res = await passwordGrant();
    expectStatus(res, 200);
    expectEntity(res.json(), OauthTokenEntity);
    const body = res.json();
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 7200);
    assert.equal(body.scope, 'api');
    assert.equal(body.created_at, Math.floor(clock / 1000));
    assert.notEqual(body.access_token, body.refresh_token);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers['content-type'], 'application/json');
  });

  test('form body, email login in any case, several scopes', async () => {
    const res = await t.post('/oauth/token', { form: `grant_type=password&username=alice%40example.com&password=${PASSWORD}&scope=read_user+read_api` });
    expectStatus(res, 200);
    expectEntity(res.json(), OauthTokenEntity);
    assert.equal(res.json().scope, 'read_user read_api');
  });

  test('the username in another case', async () => {
    const res = await grant({ grant_type: 'password', username: 'ALICE', password: PASSWORD });
    expectStatus(res, 200);
  });

  test('a wrong password, or an unknown login, is invalid_grant', async () => {
    const before = await t.count('oauth_access_tokens');
    expectError(await grant({ grant_type: 'password', username: 'alice', password: 'wrong-password' }), 400, INVALID_GRANT);
    expectError(await grant({ grant_type: 'password', username: 'nobody', password: PASSWORD }), 400, INVALID_GRANT);
    assert.equal(await t.count('oauth_access_tokens'), before);
  });

  test('a blocked user is invalid_grant', async () => {
    const bob = await t.user({ username: 'bob' });
    expectStatus(await t.post(`/api/v4/users/${bob.user.id}/block`, { token: ROOT_TOKEN }), 201);
    expectError(await grant({ grant_type: 'password', username: 'bob', password: PASSWORD }), 400, INVALID_GRANT);
  });

  test('a user with two-factor authentication is invalid_grant', async () => {
    const carol = await t.user({ username: 'carol' });
    await t.deps.db.updateTable('users').set({ two_factor_enabled: true }).where('id', '=', carol.user.id).execute();
    expectError(await grant({ grant_type: 'password', username: 'carol', password: PASSWORD }), 400, INVALID_GRANT);
  });

  test('unknown scopes, and administrators\' scopes for a user, are invalid_scope', async () => {
    expectError(await passwordGrant({ scope: 'api everything' }), 400, INVALID_SCOPE);
    expectError(await passwordGrant({ scope: 'api sudo' }), 400, INVALID_SCOPE);
    // The credentials are checked first.
    expectError(await grant({ grant_type: 'password', username: 'alice', password: 'wrong', scope: 'everything' }), 400, INVALID_GRANT);
  });

  test('an unsupported grant type', async () => {
    const res = await grant({ grant_type: 'client_credentials' });
    expectError(res, 400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' });
    expectEntity(res.json(), OauthErrorEntity);
  });

  test('missing parameters are invalid_request', async () => {
    expectError(await grant({}), 400, { error: 'invalid_request', error_description: 'Missing required parameter: grant_type.' });
    expectError(await grant({ grant_type: 'password', password: PASSWORD }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: username.' });
    expectError(await grant({ grant_type: 'password', username: 'alice' }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: password.' });
    expectError(await grant({ grant_type: 'refresh_token' }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: refresh_token.' });
  });
});

describe('using an access token', () => {
  test('through the Authorization header and the access_token parameter', async () => {
    const { access_token: token } = (await passwordGrant()).json();
    const viaHeader = await t.get('/api/v4/user', bearer(token));
    expectStatus(viaHeader, 200);
    expectEntity(viaHeader.json(), UserSelfEntity);
    assert.equal(viaHeader.json().id, alice.user.id);
    const viaQuery = await t.get('/api/v4/user', { query: { access_token: token } });
    expectStatus(viaQuery, 200);
    assert.equal(viaQuery.json().id, alice.user.id);
  });

  test('expires after expires_in seconds, with the expired body', async () => {
    const { access_token: token } = (await passwordGrant()).json();
    const start = clock;
    try {
      clock = start + 7199_000;
      expectStatus(await t.get('/api/v4/user', bearer(token)), 200);
      clock = start + 7200_000;
      const res = await t.get('/api/v4/user', bearer(token));
      expectError(res, 401, EXPIRED);
      assert.equal(res.headers['www-authenticate'], `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${EXPIRED.error_description}"`);
    } finally {
      clock = start;
    }
  });
});

describe('refresh_token grant', () => {
  test('gives a new pair, revokes the old access token, and is single-use', async () => {
    const first = (await passwordGrant({ scope: 'api read_user' })).json();
    clock += 60_000;
    const res = await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expectStatus(res, 200);
    expectEntity(res.json(), OauthTokenEntity);
    const second = res.json();
    assert.equal(second.scope, 'api read_user');
    assert.equal(second.created_at, Math.floor(clock / 1000));
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);

    expectError(await t.get('/api/v4/user', bearer(first.access_token)), 401, REVOKED);
    expectStatus(await t.get('/api/v4/user', bearer(second.access_token)), 200);
    expectError(await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token }), 400, INVALID_GRANT);
  });

  test('works after the access token expired', async () => {
    const first = (await passwordGrant()).json();
    clock += 3 * 3600_000;
    expectError(await t.get('/api/v4/user', bearer(first.access_token)), 401, EXPIRED);
    const res = await grant({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expectStatus(res, 200);
    expectStatus(await t.get('/api/v4/user', bearer(res.json().access_token)), 200);
  });

  test('an unknown refresh token is invalid_grant', async () => {
    expectError(await grant({ grant_type: 'refresh_token', refresh_token: 'nope' }), 400, INVALID_GRANT);
  });
});

describe('POST /oauth/revoke', () => {
  test('revokes an access token: 200 {}, then the token is refused', async () => {
    const { access_token: token, refresh_token: refresh } = (await passwordGrant()).json();
    const res = await t.post('/oauth/revoke', { body: { token } });
    expectStatus(res, 200);
    assert.deepEqual(res.json(), {});
    expectError(await t.get('/api/v4/user', bearer(token)), 401, REVOKED);
    expectError(await grant({ grant_type: 'refresh_token', refresh_token: refresh }), 400, INVALID_GRANT);
  });

  test('revoking by the refresh token revokes the pair', async () => {
    const { access_token: token, refresh_token: refresh } = (await passwordGrant()).json();
    expectStatus(await t.post('/oauth/revoke', { form: `token=${refresh}` }), 200);
    expectError(await t.get('/api/v4/user', bearer(token)), 401, REVOKED);
  });

  test('an unknown or missing token is not an error', async () => {
    const unknown = await t.post('/oauth/revoke', { body: { token: 'nope' } });
    expectStatus(unknown, 200);
    assert.deepEqual(unknown.json(), {});
    expectStatus(await t.post('/oauth/revoke', { body: {} }), 200);
  });
});

describe('GET /oauth/token/info', () => {
  test('describes a live token, with the platform\'s aliases', async () => {
    const issued = (await passwordGrant({ scope: 'api read_user' })).json();
    clock += 100_000;
    const res = await t.get('/oauth/token/info', bearer(issued.access_token));
    expectStatus(res, 200);
    expectEntity(res.json(), OauthTokenInfoEntity);
    assert.deepEqual(res.json(), {
      resource_owner_id: alice.user.id,
      scope: ['api', 'read_user'],
      expires_in: 7100,
      application: { uid: null },
      created_at: issued.created_at,
      scopes: ['api', 'read_user'],
      expires_in_seconds: 7100,
    });
    const viaQuery = await t.get('/oauth/token/info', { query: { access_token: issued.access_token } });
    expectStatus(viaQuery, 200);
  });

  test('unknown, revoked and expired tokens: 401 with Doorkeeper\'s descriptions', async () => {
    const invalid = (description: string) => ({ error: 'invalid_token', error_description: description });
    const unknown = await t.get('/oauth/token/info', bearer('nope'));
    expectError(unknown, 401, invalid('The access token is invalid'));
    assert.equal(unknown.headers['www-authenticate'], 'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"');
    expectError(await t.get('/oauth/token/info'), 401, invalid('The access token is invalid'));
    // A personal token is not an OAuth token.
    expectError(await t.get('/oauth/token/info', bearer(alice.token)), 401, invalid('The access token is invalid'));

    const revoked = (await passwordGrant()).json();
    await t.post('/oauth/revoke', { body: { token: revoked.access_token } });
    expectError(await t.get('/oauth/token/info', bearer(revoked.access_token)), 401, invalid('The access token was revoked'));

    const expired = (await passwordGrant()).json();
    clock += 7200_000;
    expectError(await t.get('/oauth/token/info', bearer(expired.access_token)), 401, invalid('The access token expired'));
  });
});
