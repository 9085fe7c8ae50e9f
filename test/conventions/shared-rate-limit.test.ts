// Rate limits and the authentication ban counted in Redis (REDIS_URL): processes that share it
// count together; a Redis that does not answer leaves the API up, counting in each process.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Throttle, createThrottle } from '../../src/core/rate-limit.ts';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { freePort } from '../listening.ts';
import { redisAnswers, redisUrl } from '../redis.ts';


const config = (redis: string | null, overrides: Partial<Parameters<typeof createThrottle>[0]['config']> = {}) => ({
  rateLimitRequests: 3,
  rateLimitPeriodSeconds: 60,
  redisUrl: redis,
  authBanMaxFailures: 3,
  authBanFindSeconds: 60,
  authBanSeconds: 600,
  ...overrides,
});

const quietLog = { warn() {} };

describe('counted in Redis', { skip: (await redisAnswers(redisUrl)) ? false : `no Redis answers at ${redisUrl}` }, () => {
  let t: TestApp;
  const throttles: Throttle[] = [];
  // Its own moment, so that no other run's counts meet these (the keys carry the instance id too).
  const moment = Date.UTC(2031, 0, 1, 0, 0, 0) + Math.floor(Math.random() * 1e6) * 60_000;
  const node = () => {
    const throttle = createThrottle({ config: config(redisUrl), now: () => new Date(moment + 5000), log: quietLog, db: t.deps.db });
    throttles.push(throttle);
    return throttle;
  };
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await Promise.all(throttles.map((x) => x.close()));
    await t.close();
  });

  test('two processes count one quota', async () => {
    const [a, b] = [node(), node()];
    assert.equal((await a.hit('throttle_authenticated_api', 'user:7'))?.observed, 1);
    assert.equal((await b.hit('throttle_authenticated_api', 'user:7'))?.observed, 2);
    assert.equal((await a.hit('throttle_authenticated_api', 'user:7'))?.allowed, true);
    const over = await b.hit('throttle_authenticated_api', 'user:7');
    assert.deepEqual(over && { allowed: over.allowed, observed: over.observed, retryAfter: over.retryAfter }, { allowed: false, observed: 4, retryAfter: 55 });
    assert.equal((await b.hit('throttle_authenticated_api', 'user:8'))?.observed, 1, 'each user has their own count');
  });

  test('a ban recorded by one process holds in the other', async () => {
    const [a, b] = [node(), node()];
    for (let i = 0; i < 2; i++) await a.failedAuthentication('192.0.2.1');
    await b.failedAuthentication('192.0.2.1');
    const left = await a.bannedFor('192.0.2.1');
    assert.ok(left > 590 && left <= 600, `banned for ${left} s`);
    assert.equal(await b.bannedFor('192.0.2.2'), 0);
  });

  test('the API counts through Redis', async () => {
    const app = await createTestApp({ REDIS_URL: redisUrl, QUARRY_RATE_LIMIT_REQUESTS: '2', QUARRY_RATE_LIMIT_PERIOD: '3600' });
    (app.deps as { now: () => Date }).now = () => new Date(moment);
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push((await app.get('/api/v4/version', { token: ROOT_TOKEN })).statusCode);
      assert.deepEqual(answers, [200, 200, 429]);
    } finally {
      await app.close();
    }
  });
});

describe('when Redis does not answer', () => {
  test('counting goes on in the process, with one warning', async () => {
    const warnings: object[] = [];
    const throttle = createThrottle({
      config: config(`redis://127.0.0.1:${await freePort()}`),
      now: () => new Date(Date.UTC(2030, 0, 1, 0, 0, 10)),
      log: { warn: (obj) => warnings.push(obj) },
      db: null as never,
    });
    try {
      const verdicts = [];
      for (let i = 0; i < 4; i++) verdicts.push((await throttle.hit('throttle_unauthenticated_api', 'ip:192.0.2.9'))?.allowed);
      assert.deepEqual(verdicts, [true, true, true, false]);
      for (let i = 0; i < 3; i++) await throttle.failedAuthentication('192.0.2.9');
      assert.ok((await throttle.bannedFor('192.0.2.9')) > 0);
      assert.equal(warnings.length, 1);
    } finally {
      await throttle.close();
    }
  });

  test('the API stays up and the limit holds per process', async () => {
    const app = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, QUARRY_RATE_LIMIT_REQUESTS: '2', QUARRY_RATE_LIMIT_PERIOD: '3600' });
    (app.deps as { now: () => Date }).now = () => new Date(Date.UTC(2030, 0, 1, 0, 0, 10));
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push((await app.get('/api/v4/version', { token: ROOT_TOKEN })).statusCode);
      assert.deepEqual(answers, [200, 200, 429]);
    } finally {
      await app.close();
    }
  });
});
