// The authorization-code flow end to end: a signed-in user is asked, says yes or no, the
// application exchanges the code (once) for a token that works on the API and names it; PKCE for
// public clients; trusted applications and scopes already given skip the question; every refusal
// as the platform's OAuth provider words it.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../../../test/harness.ts';
import { expectEntity, expectError, expectStatus } from '../../../test/matchers.ts';
import { UserSelfEntity } from '../users/users.schemas.ts';
import { OauthTokenEntity, OauthTokenInfoEntity } from './oauth.schemas.ts';

const CALLBACK = 'https://client.example/callback';
const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};
const INVALID_CLIENT = {
  error: 'invalid_client',
  error_description: 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
};

let t: TestApp;
let clock = Date.parse('2030-06-01T12:00:00.000Z');
let alice: TestUser;
let cookie: string;
let csrf: string;
let app: { id: number; application_id: string; secret: string };

async function register(body: Record<string, unknown> = {}) {
  const res = await t.post('/api/v4/applications', { token: ROOT_TOKEN, body: { name: 'Client', redirect_uri: CALLBACK, scopes: 'api read_user', ...body } });
  expectStatus(res, 201);
  return res.json();
}

before(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
  alice = await t.user({ username: 'alice' });
  const signIn = await t.post('/users/sign_in', { form: new URLSearchParams({ 'user[login]': 'alice', 'user[password]': PASSWORD }).toString() });
  expectStatus(signIn, 302);
  const session = signIn.cookies.find((c: { name: string }) => c.name === '_service_session');
  assert.ok(session);
  cookie = `_service_session=${session.value}`;
  csrf = /<meta name="csrf-token" content="([^"]+)">/.exec((await t.get('/users/sign_in', { headers: { cookie } })).body)?.[1] ?? '';
  assert.ok(csrf);
  app = await register();
});
after(() => t.close());

const authorizeQuery = (extra: Record<string, string> = {}, client = app) =>
  new URLSearchParams({ client_id: client.application_id, redirect_uri: CALLBACK, response_type: 'code', state: 'xyz', ...extra }).toString();
const ask = (extra: Record<string, string> = {}, client = app) => t.get(`/oauth/authorize?${authorizeQuery(extra, client)}`, { headers: { cookie } });
const decide = (fields: Record<string, string>, client = app) =>
  t.post('/oauth/authorize', { headers: { cookie }, form: new URLSearchParams({ authenticity_token: csrf, client_id: client.application_id, redirect_uri: CALLBACK, response_type: 'code', state: 'xyz', ...fields }).toString() });
const exchange = (fields: Record<string, string>) => t.post('/oauth/token', { form: new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: CALLBACK, ...fields }).toString() });

function codeOf(location: string | undefined): string {
  assert.ok(location);
  const url = new URL(location);
  assert.equal(`${url.origin}${url.pathname}`, CALLBACK);
  assert.equal(url.searchParams.get('state'), 'xyz');
  const code = url.searchParams.get('code');
  assert.ok(code, location);
  return code;
}

describe('the user is asked', () => {
  test('signed out: to the sign-in page, which comes back here', async () => {
    const res = await t.get(`/oauth/authorize?${authorizeQuery()}`);
    expectStatus(res, 302);
    const location = new URL(res.headers.location as string, 'http://x');
    assert.equal(location.pathname, '/users/sign_in');
    assert.equal(location.searchParams.get('redirect_to'), `/oauth/authorize?${authorizeQuery()}`);
  });

  test('the consent page names the application and the scopes', async () => {
    const res = await ask({ scope: 'read_user' });
    expectStatus(res, 200);
    assert.match(res.body, /Authorize <strong>Client<\/strong> to use your account\?/);
    assert.match(res.body, /<code>read_user<\/code>/);
  });

  test('yes: a code at the callback, exchanged once for a token that acts as the user and names the application', async () => {
    const res = await decide({ scope: 'read_user' });
    expectStatus(res, 302);
    const code = codeOf(res.headers.location as string);
    const token = await exchange({ client_id: app.application_id, client_secret: app.secret, code });
    expectStatus(token, 200);
    expectEntity(token.json(), OauthTokenEntity);
    assert.equal(token.json().scope, 'read_user');
    const me = await t.get('/api/v4/user', { headers: { authorization: `Bearer ${token.json().access_token}` } });
    expectStatus(me, 200);
    expectEntity(me.json(), UserSelfEntity);
    assert.equal(me.json().id, alice.user.id);
    const info = await t.get('/oauth/token/info', { headers: { authorization: `Bearer ${token.json().access_token}` } });
    expectEntity(info.json(), OauthTokenInfoEntity);
    assert.deepEqual(info.json().application, { uid: app.application_id });
    // A refreshed token still names the application.
    const refreshed = await t.post('/oauth/token', { body: { grant_type: 'refresh_token', refresh_token: token.json().refresh_token } });
    expectStatus(refreshed, 200);
    const again = await t.get('/oauth/token/info', { headers: { authorization: `Bearer ${refreshed.json().access_token}` } });
    assert.deepEqual(again.json().application, { uid: app.application_id });
    // The code is spent.
    expectError(await exchange({ client_id: app.application_id, client_secret: app.secret, code }), 400, INVALID_GRANT);
  });

  test('asked again for scopes already given: straight back with a code', async () => {
    const res = await ask({ scope: 'read_user' });
    expectStatus(res, 302);
    codeOf(res.headers.location as string);
    // More than was given: asked.
    expectStatus(await ask({ scope: 'api read_user' }), 200);
  });

  test('no: access_denied at the callback', async () => {
    const res = await decide({ _method: 'delete' });
    expectStatus(res, 302);
    const url = new URL(res.headers.location as string);
    assert.equal(url.searchParams.get('error'), 'access_denied');
    assert.equal(url.searchParams.get('error_description'), 'The resource owner or authorization server denied the request.');
    assert.equal(url.searchParams.get('state'), 'xyz');
    expectStatus(await t.del(`/oauth/authorize?${authorizeQuery()}`, { headers: { cookie, 'x-csrf-token': csrf } }), 302);
  });

  test('a post without the page CSRF token grants nothing', async () => {
    const res = await t.post('/oauth/authorize', { headers: { cookie }, form: authorizeQuery() });
    expectStatus(res, 422);
    assert.equal(res.headers.location, undefined);
  });

  test('a trusted application is not asked about', async () => {
    const trusted = await register({ name: 'Internal' });
    await t.deps.db.updateTable('oauth_applications').set({ trusted: true }).where('id', '=', trusted.id).execute();
    const res = await ask({}, trusted);
    expectStatus(res, 302);
    codeOf(res.headers.location as string);
  });
});

describe('problems with the request', () => {
  test('an unknown client or a redirect URI it did not register: a page, never a redirect', async () => {
    const unknown = await t.get(`/oauth/authorize?${authorizeQuery({ client_id: 'nope' })}`, { headers: { cookie } });
    expectStatus(unknown, 400);
    assert.match(unknown.body, /Client authentication failed due to unknown client/);
    const elsewhere = await ask({ redirect_uri: 'https://evil.example/steal' });
    expectStatus(elsewhere, 400);
    assert.equal(elsewhere.headers.location, undefined);
    assert.match(elsewhere.body, /The requested redirect uri is malformed or doesn&#39;t match client redirect URI\./);
  });

  test('a scope the application was not given, or another response type: back to the application with the error', async () => {
    for (const [extra, error] of [
      [{ scope: 'sudo' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ code_challenge: 'abc', code_challenge_method: 'md5' }, 'invalid_request'],
    ] as const) {
      const res = await ask(extra);
      expectStatus(res, 302);
      const url = new URL(res.headers.location as string);
      assert.equal(url.searchParams.get('error'), error);
      assert.equal(url.searchParams.get('state'), 'xyz');
    }
  });

  test('the token request: wrong secret, unknown client, missing code, another redirect URI, an expired code', async () => {
    const code = codeOf((await decide({ scope: 'api' })).headers.location as string);
    expectError(await exchange({ client_id: app.application_id, client_secret: 'wrong', code }), 401, INVALID_CLIENT);
    expectError(await exchange({ client_id: 'nope', client_secret: app.secret, code }), 401, INVALID_CLIENT);
    expectError(await exchange({ client_id: app.application_id, code }), 401, INVALID_CLIENT);
    expectError(await exchange({ client_id: app.application_id, client_secret: app.secret }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: code.' });
    expectError(await exchange({ client_id: app.application_id, client_secret: app.secret, code, redirect_uri: 'https://client.example/other' }), 400, INVALID_GRANT);
    // HTTP Basic client authentication works as the form fields do.
    const basic = `Basic ${Buffer.from(`${app.application_id}:${app.secret}`).toString('base64')}`;
    const stale = codeOf((await decide({ scope: 'api' })).headers.location as string);
    clock += 601_000;
    const late = await t.post('/oauth/token', { headers: { authorization: basic }, form: new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: CALLBACK, code: stale }).toString() });
    expectError(late, 400, INVALID_GRANT);
    const fresh = codeOf((await decide({ scope: 'api' })).headers.location as string);
    const ok = await t.post('/oauth/token', { headers: { authorization: basic }, form: new URLSearchParams({ grant_type: 'authorization_code', redirect_uri: CALLBACK, code: fresh }).toString() });
    expectStatus(ok, 200);
  });
});

describe('PKCE for a public client', () => {
  test('no secret; the verifier must match the S256 challenge', async () => {
    const client = await register({ name: 'SPA', confidential: false });
    const verifier = 'a-long-random-verifier-string-of-at-least-43-characters-0123456789';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const code = codeOf((await decide({ scope: 'api', code_challenge: challenge, code_challenge_method: 'S256' }, client)).headers.location as string);
    expectError(await exchange({ client_id: client.application_id, code }), 400, { error: 'invalid_request', error_description: 'Missing required parameter: code_verifier.' });
    expectError(await exchange({ client_id: client.application_id, code, code_verifier: 'wrong' }), 400, INVALID_GRANT);
    const second = codeOf((await decide({ scope: 'api', code_challenge: challenge, code_challenge_method: 'S256' }, client)).headers.location as string);
    const res = await exchange({ client_id: client.application_id, code: second, code_verifier: verifier });
    expectStatus(res, 200);
    expectEntity(res.json(), OauthTokenEntity);
  });

  test('deleting the application ends the tokens it was given', async () => {
    const client = await register({ name: 'Doomed' });
    const code = codeOf((await decide({ scope: 'api' }, client)).headers.location as string);
    const token = (await exchange({ client_id: client.application_id, client_secret: client.secret, code })).json().access_token;
    expectStatus(await t.get('/api/v4/user', { headers: { authorization: `Bearer ${token}` } }), 200);
    expectStatus(await t.del(`/api/v4/applications/${client.id}`, { token: ROOT_TOKEN }), 204);
    expectStatus(await t.get('/api/v4/user', { headers: { authorization: `Bearer ${token}` } }), 401);
  });
});
