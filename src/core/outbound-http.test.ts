// Requests to addresses users give, against a local server: redirects followed for reads only,
// bodies sent as bytes or streams, answers read whole or streamed to a sink within a size limit,
// local addresses refused unless allowed, and a deadline for the whole exchange.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { OutboundError, checkedGet, checkedPost, checkedRequest } from './outbound-http.ts';

let server: http.Server;
let base: string;
const received: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (req.url === '/moved') return res.writeHead(302, { location: '/target' }).end();
      if (req.url === '/big') return res.writeHead(200).end('x'.repeat(5000));
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 2000);
      if (req.url === '/refuse') return res.writeHead(422, { 'x-why': 'no' }).end('refused');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`ok ${req.method} ${req.url}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

const allowed = { allowLocal: true, timeoutMs: 1000, maxBytes: 1024 };

const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OutboundError);
    return error.failure;
  }
  return null;
};

test('a GET follows redirects and reads the answer', async () => {
  const res = await checkedGet(`${base}/moved`, allowed);
  assert.deepEqual([res.status, res.body.toString()], [200, 'ok GET /target']);
});

test('a POST sends its bytes once, follows no redirect, and reads any answer with its headers', async () => {
  const res = await checkedPost(`${base}/refuse`, Buffer.from('{"a":1}'), { 'content-type': 'application/json' }, allowed);
  assert.deepEqual([res.status, res.body.toString(), res.headers['x-why']], [422, 'refused', 'no']);
  const sent = received.at(-1);
  assert.deepEqual([sent?.method, sent?.body, sent?.headers['content-length']], ['POST', '{"a":1}', '7']);
  assert.equal((await checkedPost(`${base}/moved`, Buffer.from(''), {}, allowed)).status, 302);
});

test('a PUT streams its body; a GET streams its answer to a sink', async () => {
  const put = await checkedRequest(`${base}/upload`, { method: 'PUT', headers: { 'content-length': '5' }, body: () => Readable.from([Buffer.from('he'), Buffer.from('llo')]) }, allowed);
  assert.equal(put.status, 200);
  assert.deepEqual([received.at(-1)?.method, received.at(-1)?.body], ['PUT', 'hello']);
  const chunks: Buffer[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (chunks.push(chunk), done()) });
  const got = await checkedRequest(`${base}/moved`, { method: 'GET', sink }, allowed);
  assert.deepEqual([got.status, Buffer.concat(chunks).toString()], [200, 'ok GET /target']);
});

test('limits: a body over maxBytes, the deadline, local addresses when not allowed, other schemes', async () => {
  assert.equal(await failureOf(checkedGet(`${base}/big`, allowed)), 'too_large');
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  assert.equal(await failureOf(checkedRequest(`${base}/big`, { method: 'GET', sink }, allowed)), 'too_large');
  assert.equal(await failureOf(checkedGet(`${base}/slow`, { ...allowed, timeoutMs: 200 })), 'timeout');
  assert.equal(await failureOf(checkedPost(`${base}/x`, Buffer.from('a'), {}, { ...allowed, allowLocal: false })), 'blocked');
  assert.equal(await failureOf(checkedGet('ftp://example.com/x', allowed)), 'invalid');
  assert.equal(await failureOf(checkedGet('http://nowhere.invalid/', { ...allowed, lookup: async () => [] })), 'unresolved');
});
