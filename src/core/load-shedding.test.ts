// Load shedding: beyond the bound of requests in progress, or while the event loop runs late, 503
// with Retry-After at once; the health probes always answered; a slot comes back when its answer is
// written or its client leaves.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp } from '../../test/harness.ts';
import { listeningTestApp } from '../../test/listening.ts';

let t: TestApp;
let host: string;

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_MAX_IN_FLIGHT: '3', QUARRY_OVERLOAD_LAG: '200' }));
});
after(() => t.close());

const port = () => Number(new URL(host).port);

/** Holds a slot: a request whose body never finishes. Resolves once the server has it. */
async function hold(): Promise<net.Socket> {
  const socket = net.connect(port(), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`POST /api/v4/groups HTTP/1.1\r\nHost: x\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
  socket.on('error', () => {});
  await new Promise((resolve) => setTimeout(resolve, 300));
  return socket;
}

test('beyond the bound: 503 with Retry-After at once; the probes still answer; slots come back', async () => {
  const held = [await hold(), await hold(), await hold()];
  // On a busy machine the server may take a moment to have read all three.
  let refused = await fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } });
  for (let i = 0; i < 50 && refused.status !== 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    refused = await fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } });
  }
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.deepEqual(await refused.json(), { message: '503 Service Unavailable' });
  for (const probe of ['/-/health', '/-/liveness', '/-/readiness']) assert.equal((await fetch(`${host}${probe}`)).status, 200, probe);

  // A client that leaves gives its slot back.
  held.pop()?.destroy();
  let passed = await fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } });
  for (let i = 0; i < 50 && passed.status !== 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    passed = await fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } });
  }
  assert.equal(passed.status, 200);
  for (const socket of held) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Answered requests give theirs back too: many in a row all pass.
  for (let i = 0; i < 10; i++) assert.equal((await fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } })).status, 200);
});

test('while the event loop runs late, new requests are refused; once it catches up, they pass', async () => {
  // The application runs in this process: holding its loop is overload.
  await new Promise((resolve) => setTimeout(resolve, 100));
  // A request arriving while the loop is held is looked at once it is free, after the late sample.
  const pending = fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } });
  const until = performance.now() + 400;
  while (performance.now() < until);
  const refused = await pending;
  assert.equal(refused.status, 503);
  assert.equal((await fetch(`${host}/-/liveness`)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal((await fetch(`${host}/api/v4/version`, { headers: { 'private-token': ROOT_TOKEN } })).status, 200);
});
