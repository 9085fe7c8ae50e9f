// Load shedding: beyond the bound of requests in progress, or while the event loop runs late for a
// sustained while (one stall is not enough), 503 with Retry-After at once; the health probes always
// answered; a slot comes back when its answer is written or its client leaves. On an application of
// its own, whose requests wait on a gate the test opens: what is in progress is then known, however
// busy the machine.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installLoadShedding } from './load-shedding.ts';

const LATE_MS = 200;
const SUSTAIN_MS = 400;

let app: FastifyInstance;
let base: string;
let openGate: () => void = () => {};
let gate: Promise<void>;
let waiting = 0;

before(async () => {
  app = Fastify();
  installLoadShedding(app, { maxInFlight: 2, lateMs: LATE_MS, sustainMs: SUSTAIN_MS });
  app.get('/slow', async () => {
    waiting += 1;
    await gate;
    waiting -= 1;
    return { done: true };
  });
  app.get('/fast', async () => ({ done: true }));
  app.get('/-/liveness', async () => ({ status: 'ok' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
after(() => app.close());

const closeGate = () => {
  gate = new Promise((resolve) => (openGate = resolve));
};
const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition());
};

test('beyond the bound: 503 with Retry-After at once; the probes still answer; slots come back', async () => {
  closeGate();
  const slow = [fetch(`${base}/slow`), fetch(`${base}/slow`)];
  await until(() => waiting === 2);
  const refused = await fetch(`${base}/fast`);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.deepEqual(await refused.json(), { message: '503 Service Unavailable' });
  assert.equal((await fetch(`${base}/-/liveness`)).status, 200);

  openGate();
  assert.deepEqual(await Promise.all(slow.map(async (res) => (await res).status)), [200, 200]);
  assert.equal((await fetch(`${base}/fast`)).status, 200);
});

test('a client that leaves gives its slot back', async () => {
  closeGate();
  const leaving = new AbortController();
  const left = fetch(`${base}/slow`, { signal: leaving.signal }).catch(() => null);
  const staying = fetch(`${base}/slow`);
  await until(() => waiting === 2);
  assert.equal((await fetch(`${base}/fast`)).status, 503);
  leaving.abort();
  await left;
  let passed = await fetch(`${base}/fast`);
  for (let i = 0; i < 100 && passed.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    passed = await fetch(`${base}/fast`);
  }
  assert.equal(passed.status, 200);
  openGate();
  assert.equal((await staying).status, 200);
});

/** Holds the event loop for ms, as a long synchronous task would. */
const hold = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

/** Keeps the loop late for ms: every turn holds it for longer than the threshold, as an overload does. */
const keepLate = async (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    hold(LATE_MS + 50);
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
};

test('one stall of the loop, however long, sheds nothing: lateness must be sustained', async () => {
  closeGate();
  openGate();
  await new Promise((resolve) => setTimeout(resolve, SUSTAIN_MS));
  // Looked at once the loop is free, right after a sample that came 600 ms late.
  const pending = fetch(`${base}/fast`);
  hold(600);
  assert.equal((await pending).status, 200);
});

test('while the loop runs late for a sustained while, new requests are refused but probes answered; once it keeps up, they pass', async () => {
  const refused = fetch(`${base}/fast`);
  const probe = fetch(`${base}/-/liveness`);
  // Long enough to be overloaded (SUSTAIN_MS), and for both requests to arrive in turns of a late loop.
  await keepLate(SUSTAIN_MS + 2000);
  const res = await refused;
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal((await probe).status, 200);
  // Once the loop has kept up for SUSTAIN_MS, it is no longer overloaded.
  await new Promise((resolve) => setTimeout(resolve, SUSTAIN_MS + 200));
  assert.equal((await fetch(`${base}/fast`)).status, 200);
});

test('requests handed in by app.inject are never refused for lateness: they wait on no connection', async () => {
  await keepLate(SUSTAIN_MS + 300);
  hold(LATE_MS + SUSTAIN_MS + 100);
  // Looked at in the same turn, SUSTAIN_MS overdue, with the loop overloaded.
  assert.equal((await app.inject({ url: '/fast' })).statusCode, 200);
  await new Promise((resolve) => setTimeout(resolve, SUSTAIN_MS + 200));
});
