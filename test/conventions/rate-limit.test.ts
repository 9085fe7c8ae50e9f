// The request throttle: off by default; with QUARRY_RATE_LIMIT_REQUESTS set, the request after the
// quota is 429 "Retry later" with Retry-After and RateLimit-* headers, per user or per address, on
// the API, git over HTTP and signing in. The ban of addresses that fail to authenticate too often.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { PASSWORD, ROOT_TOKEN, type TestApp, type TestUser, createTestApp } from '../harness.ts';
import { expectEntity, expectError } from '../matchers.ts';
import { MetadataEntity } from '../../src/modules/metadata/metadata.routes.ts';

const LIMIT = 3;
const PERIOD = 10;

function expectThrottled(res: LightMyRequestResponse, name: string, observed: number, nowSeconds: number) {
  assert.equal(res.statusCode, 429, res.body);
  assert.equal(res.headers['content-type'], 'text/plain');
  assert.equal(res.body, 'Retry later\n');
  assert.equal(res.headers['ratelimit-name'], name);
  assert.equal(res.headers['ratelimit-limit'], String(Math.ceil((LIMIT * 60) / PERIOD)));
  assert.equal(res.headers['ratelimit-observed'], String(observed));
  assert.equal(res.headers['ratelimit-remaining'], '0');
  const reset = Number(res.headers['ratelimit-reset']);
  assert.ok(reset > nowSeconds && reset <= nowSeconds + PERIOD, `reset ${reset} within the period after ${nowSeconds}`);
  assert.equal(res.headers['ratelimit-resettime'], new Date(reset * 1000).toUTCString());
  assert.equal(res.headers['retry-after'], String(reset - nowSeconds));
  assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
}

describe('off by default', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  test('many requests, none throttled, no RateLimit headers', async () => {
    for (let i = 0; i < 60; i++) {
      const res = await t.get('/api/v4/version', { token: ROOT_TOKEN });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
  });
});

describe(`QUARRY_RATE_LIMIT_REQUESTS=${LIMIT}, QUARRY_RATE_LIMIT_PERIOD=${PERIOD}`, () => {
  let t: TestApp;
  let clock = Date.UTC(2030, 0, 1, 12, 0, 0);
  const nowSeconds = () => Math.floor(clock / 1000);
  before(async () => {
    t = await createTestApp({ QUARRY_RATE_LIMIT_REQUESTS: String(LIMIT), QUARRY_RATE_LIMIT_PERIOD: String(PERIOD) });
    (t.deps as { now: () => Date }).now = () => new Date(clock);
  });
  after(() => t.close());

  /** Moves to the start of the next window plus `offset` seconds. */
  function nextWindow(offset = 0) {
    clock = (Math.floor(clock / (PERIOD * 1000)) + 1) * PERIOD * 1000 + offset * 1000;
  }

  test('the request after the quota is 429 with the throttle headers', async () => {
    nextWindow(3);
    for (let i = 0; i < LIMIT; i++) {
      const ok = await t.get('/api/v4/version', { token: ROOT_TOKEN });
      assert.equal(ok.statusCode, 200);
      expectEntity(ok.json(), MetadataEntity);
    }
    expectThrottled(await t.get('/api/v4/version', { token: ROOT_TOKEN }), 'throttle_authenticated_api', LIMIT + 1, nowSeconds());
    expectThrottled(await t.get('/api/v4/user', { token: ROOT_TOKEN }), 'throttle_authenticated_api', LIMIT + 2, nowSeconds());
  });

  test('the quota is per user: another user is not affected', async () => {
    nextWindow();
    const { token } = await t.user();
    for (let i = 0; i < LIMIT + 1; i++) await t.get('/api/v4/version', { token: ROOT_TOKEN });
    const other = await t.get('/api/v4/version', { token });
    assert.equal(other.statusCode, 200);
  });

  test('anonymous callers are counted by address', async () => {
    nextWindow(9);
    for (let i = 0; i < LIMIT; i++) {
      expectError(await t.get('/api/v4/version'), 401, { message: '401 Unauthorized' });
    }
    expectThrottled(await t.get('/api/v4/version'), 'throttle_unauthenticated_api', LIMIT + 1, nowSeconds());
    assert.equal((await t.get('/api/v4/version', { token: ROOT_TOKEN })).statusCode, 200, 'a signed-in caller has its own quota');
  });

  test('refused tokens count too, so guessing is throttled', async () => {
    nextWindow();
    for (let i = 0; i < LIMIT; i++) {
      expectError(await t.get('/api/v4/user', { token: `glpat-guess-${i}` }), 401, { message: '401 Unauthorized' });
    }
    expectThrottled(await t.get('/api/v4/user', { token: 'glpat-guess-x' }), 'throttle_unauthenticated_api', LIMIT + 1, nowSeconds());
  });

  test('writes are refused before they happen', async () => {
    nextWindow();
    for (let i = 0; i < LIMIT; i++) await t.get('/api/v4/version', { token: ROOT_TOKEN });
    const before = await t.count('personal_access_tokens');
    const res = await t.post('/api/v4/users/1/personal_access_tokens', { token: ROOT_TOKEN, body: { name: 'x', scopes: ['api'] } });
    expectThrottled(res, 'throttle_authenticated_api', LIMIT + 1, nowSeconds());
    assert.equal(await t.count('personal_access_tokens'), before);
  });

  test('the quota comes back with the next window', async () => {
    nextWindow();
    for (let i = 0; i < LIMIT + 1; i++) await t.get('/api/v4/version', { token: ROOT_TOKEN });
    nextWindow();
    assert.equal((await t.get('/api/v4/version', { token: ROOT_TOKEN })).statusCode, 200);
  });

  test('doubled slashes do not slip past it', async () => {
    nextWindow();
    for (let i = 0; i < LIMIT; i++) await t.get('/api/v4/version', { token: ROOT_TOKEN });
    assert.equal((await t.get('//api//v4/version', { token: ROOT_TOKEN })).statusCode, 429);
  });

  test('health probes and the sign-in page are not throttled', async () => {
    nextWindow();
    for (let i = 0; i < LIMIT * 3; i++) {
      assert.equal((await t.get('/-/liveness')).statusCode, 200);
      assert.equal((await t.get('/users/sign_in')).statusCode, 200);
    }
  });
});

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

/** A 429 outside the API: the same headers, in git's plain text. */
function expectThrottledElsewhere(res: LightMyRequestResponse, name: string, observed: number) {
  assert.equal(res.statusCode, 429, res.body);
  assert.match(String(res.headers['content-type']), /^text\/plain/);
  assert.equal(res.body, 'Retry later\n');
  assert.equal(res.headers['ratelimit-name'], name);
  assert.equal(res.headers['ratelimit-observed'], String(observed));
  assert.ok(Number(res.headers['retry-after']) >= 1);
}

describe('git over HTTP and signing in are throttled too', () => {
  let t: TestApp;
  let clock = Date.UTC(2030, 0, 1, 12, 0, 0);
  const refs = '/root/open.git/info/refs?service=git-upload-pack';
  before(async () => {
    t = await createTestApp({ QUARRY_RATE_LIMIT_REQUESTS: String(LIMIT), QUARRY_RATE_LIMIT_PERIOD: String(PERIOD) });
    (t.deps as { now: () => Date }).now = () => new Date(clock);
    const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'open', visibility: 'public', initialize_with_readme: true } });
    assert.equal(res.statusCode, 201, res.body);
  });
  after(() => t.close());
  const nextWindow = () => (clock = (Math.floor(clock / (PERIOD * 1000)) + 1) * PERIOD * 1000);

  test('a git client over its quota is 429, per user', async () => {
    nextWindow();
    const headers = { authorization: basic('root', ROOT_TOKEN) };
    for (let i = 0; i < LIMIT; i++) assert.equal((await t.get(refs, { headers })).statusCode, 200);
    expectThrottledElsewhere(await t.get(refs, { headers }), 'throttle_authenticated_git_http', LIMIT + 1);
    assert.equal((await t.get('/api/v4/version', { token: ROOT_TOKEN })).statusCode, 200, 'the API counts apart');
    const { token } = await t.user();
    assert.equal((await t.get(refs, { headers: { authorization: basic('someone', token) } })).statusCode, 200, 'another user has a quota of their own');
  });

  test('anonymous git clients and refused credentials are counted by address', async () => {
    nextWindow();
    for (let i = 0; i < LIMIT - 1; i++) assert.equal((await t.get(refs)).statusCode, 200);
    assert.equal((await t.get(refs, { headers: { authorization: basic('root', 'wrong') } })).statusCode, 401);
    expectThrottledElsewhere(await t.get(refs), 'throttle_unauthenticated_git_http', LIMIT + 1);
  });

  test('sign-in attempts are counted by address', async () => {
    nextWindow();
    const form = 'user%5Blogin%5D=root&user%5Bpassword%5D=wrong-password';
    for (let i = 0; i < LIMIT; i++) assert.equal((await t.post('/users/sign_in', { form })).statusCode, 401);
    expectThrottledElsewhere(await t.post('/users/sign_in', { form }), 'throttle_unauthenticated_protected_paths_web', LIMIT + 1);
  });
});

describe('an address that fails to authenticate too often is banned', () => {
  const FAILURES = 3;
  const FIND = 60;
  const BAN = 600;
  let t: TestApp;
  let clock = Date.UTC(2030, 0, 1, 12, 0, 0);
  const refs = '/root/open.git/info/refs?service=git-upload-pack';
  const good = { authorization: basic('root', ROOT_TOKEN) };
  const bad = { authorization: basic('root', 'not-the-password') };
  let passwordUser: TestUser;
  before(async () => {
    t = await createTestApp({ QUARRY_AUTH_BAN_MAX_FAILURES: String(FAILURES), QUARRY_AUTH_BAN_FIND_TIME: String(FIND), QUARRY_AUTH_BAN_TIME: String(BAN) });
    (t.deps as { now: () => Date }).now = () => new Date(clock);
    const res = await t.post('/api/v4/projects', { token: ROOT_TOKEN, body: { name: 'open', visibility: 'public', initialize_with_readme: true } });
    assert.equal(res.statusCode, 201, res.body);
    passwordUser = await t.user({ username: 'walker' });
  });
  after(() => t.close());
  /** The next find window, from its start. */
  const nextWindow = () => (clock = (Math.floor(clock / (FIND * 1000)) + 1) * FIND * 1000);
  const fromAddress = (remoteAddress: string, url: string, headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers, remoteAddress });

  test('failures spread over windows do not ban', async () => {
    nextWindow();
    for (let i = 0; i < FAILURES - 1; i++) assert.equal((await t.get(refs, { headers: bad })).statusCode, 401);
    nextWindow();
    for (let i = 0; i < FAILURES - 1; i++) assert.equal((await t.get(refs, { headers: bad })).statusCode, 401);
    assert.equal((await t.get(refs, { headers: good })).statusCode, 200);
  });

  test("once banned, the address's credentials are refused (403) until the ban ends; others are not", async () => {
    nextWindow();
    for (let i = 0; i < FAILURES; i++) assert.equal((await t.get(refs, { headers: bad })).statusCode, 401);
    const refused = await t.get(refs, { headers: good });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.body, 'Forbidden\n');
    assert.equal((await t.post('/users/sign_in', { form: `user%5Blogin%5D=walker&user%5Bpassword%5D=${PASSWORD}` })).statusCode, 403, 'signing in too');
    // Anonymous reads go on, and so does the API, which the request throttle protects.
    assert.equal((await t.get(refs)).statusCode, 200);
    assert.equal((await t.get('/api/v4/user', { token: passwordUser.token })).statusCode, 200);
    assert.equal((await fromAddress('10.0.0.7', refs, good)).statusCode, 200, 'another address is not banned');
    clock += (BAN - 1) * 1000;
    assert.equal((await t.get(refs, { headers: good })).statusCode, 403);
    clock += 2000;
    assert.equal((await t.get(refs, { headers: good })).statusCode, 200);
  });

  test('failed sign-ins count towards the ban', async () => {
    nextWindow();
    const wrong = 'user%5Blogin%5D=walker&user%5Bpassword%5D=wrong-password';
    for (let i = 0; i < FAILURES; i++) assert.equal((await t.app.inject({ method: 'POST', url: '/users/sign_in', payload: wrong, headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: '10.0.0.8' })).statusCode, 401);
    assert.equal((await fromAddress('10.0.0.8', refs, good)).statusCode, 403);
    assert.equal((await t.get(refs, { headers: good })).statusCode, 200);
  });

  /** A form POST from an address. */
  const postFrom = (remoteAddress: string, url: string, payload: string) =>
    t.app.inject({ method: 'POST', url, payload, headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress });
  const grant = (remoteAddress: string, password: string) => postFrom(remoteAddress, '/oauth/token', `grant_type=password&username=walker&password=${password}`);

  test('failed password grants count towards the ban, once each; a banned address is refused a grant unread', async () => {
    nextWindow();
    const address = '10.0.0.9';
    for (let i = 0; i < FAILURES - 1; i++) {
      const res = await grant(address, 'wrong-password');
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error, 'invalid_grant');
    }
    assert.equal((await fromAddress(address, refs, good)).statusCode, 200, 'each failure counted once: not banned yet');
    assert.equal((await grant(address, 'wrong-password')).statusCode, 400);
    const refused = await grant(address, PASSWORD);
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.body, 'Forbidden\n');
    assert.equal(refused.headers['cache-control'], 'no-store');
    assert.equal((await fromAddress(address, refs, good)).statusCode, 403, 'git over HTTP too');
    assert.equal((await grant('10.0.0.10', PASSWORD)).statusCode, 200, 'another address is not banned');
  });

  test('git credentials, sign-in and the password grant share one count, each failure counted once', async () => {
    nextWindow();
    const address = '10.0.0.11';
    assert.equal(FAILURES, 3, 'one failure of each kind reaches the ban');
    assert.equal((await fromAddress(address, refs, bad)).statusCode, 401);
    assert.equal((await postFrom(address, '/users/sign_in', 'user%5Blogin%5D=walker&user%5Bpassword%5D=wrong-password')).statusCode, 401);
    // Counted twice, either would have banned the address already.
    assert.equal((await fromAddress(address, refs, good)).statusCode, 200);
    assert.equal((await grant(address, 'wrong-password')).statusCode, 400);
    assert.equal((await fromAddress(address, refs, good)).statusCode, 403);
  });

  test("refused API tokens (header, query, Bearer) do not count towards the ban: the request throttle covers them, as on the platform", async () => {
    nextWindow();
    const address = '10.0.0.12';
    const api = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers, remoteAddress: address });
    for (let i = 0; i < FAILURES; i++) {
      assert.equal((await api('/api/v4/user', { 'private-token': `glpat-guess-${i}` })).statusCode, 401);
      assert.equal((await api(`/api/v4/user?private_token=glpat-guess-${i}`)).statusCode, 401);
      assert.equal((await api('/api/v4/user', { authorization: `Bearer guess-${i}` })).statusCode, 401);
    }
    assert.equal((await fromAddress(address, refs, good)).statusCode, 200);
    assert.equal((await grant(address, PASSWORD)).statusCode, 200);
  });
});
