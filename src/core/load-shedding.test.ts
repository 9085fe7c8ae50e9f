// Load shedding: beyond the bound of requests in progress, or while the event loop runs late, 503
// with Retry-After at once; the health probes always answered; a slot comes back when its answer is
// written or its client leaves. On an application of its own, whose requests wait on a gate the
// test opens: what is in progress is then known, however busy the machine.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { installLoadShedding } from './load-shedding.ts';

let app: FastifyInstance;
let base: string;
let openGate: () => void = () => {};
let gate: Promise<void>;
let waiting = 0;

before(async () => {
  app = Fastify();
  installLoadShedding(app, { maxInFlight: 2, lateMs: 200 });
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

test('while the event loop runs late, new requests are refused; once it catches up, they pass', async () => {
  closeGate();
  openGate();
  await new Promise((resolve) => setTimeout(resolve, 100));
  // A request arriving while the loop is held is looked at once it is free, after the late sample.
  const pending = fetch(`${base}/fast`);
  const end = performance.now() + 400;
  while (performance.now() < end);
  assert.equal((await pending).status, 503);
  assert.equal((await fetch(`${base}/-/liveness`)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal((await fetch(`${base}/fast`)).status, 200);
});
