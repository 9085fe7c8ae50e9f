// The request throttle: off by default; with QUARRY_RATE_LIMIT_REQUESTS set, the request after the
// quota is 429 "Retry later" with Retry-After and RateLimit-* headers, per user or per address.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
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
