// Requests the HTTP parser cannot read, over a real socket: the answer is the platform's plain text
// with the status's words, never Fastify's own JSON body, and the connection closes. And a body
// sent with a GET is read before the answer, so that a client on a closing connection gets it whole.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { ROOT_TOKEN, type TestApp, createTestApp } from '../harness.ts';
import { listeningTestApp } from '../listening.ts';

let t: TestApp;
let port: number;
before(async () => {
  let host: string;
  ({ t, host } = await listeningTestApp());
  port = Number(new URL(host).port);
});
after(() => t.close());

/** Writes raw bytes and reads until the server closes the connection. */
function exchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

const statusLine = (answer: string) => answer.split('\r\n')[0];
const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);

test('a body no header frames (a DELETE with a body but no Content-Length) is 400 "Bad Request" in plain text', async () => {
  const answer = await exchange('DELETE /api/v4/users/1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n{}');
  assert.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request');
  assert.match(answer, /Content-Type: text\/plain; charset=utf-8\r\n/);
  assert.equal(bodyOf(answer), 'Bad Request');
});

test('a request line that is no HTTP is 400 "Bad Request" in plain text', async () => {
  const answer = await exchange('NOT HTTP AT ALL\r\n\r\n');
  assert.equal(statusLine(answer), 'HTTP/1.1 400 Bad Request');
  assert.equal(bodyOf(answer), 'Bad Request');
});

test('headers over the size limit are 431 in plain text', async () => {
  const answer = await exchange(`GET /api/v4/version?${'q=1&'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.equal(statusLine(answer), 'HTTP/1.1 431 Request Header Fields Too Large');
  assert.match(answer, /Content-Type: text\/plain; charset=utf-8\r\n/);
  assert.equal(bodyOf(answer), 'Request Header Fields Too Large');
});

/** A request on a connection of its own that closes after the answer (Connection: close). */
function once(method: string, path: string, payload: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) };
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

test('a GET with a large body on a closing connection gets its whole answer, the body ignored', async () => {
  const res = await once('GET', '/-/openapi.json', '['.repeat(3_000_000));
  assert.equal(res.status, 200);
  assert.equal(JSON.parse(res.body).openapi, '3.1.0');
});

test('a GET body over the body limit is 413, as any other', async () => {
  const small = await createTestApp({ QUARRY_BODY_LIMIT: '2048' });
  try {
    const over = await small.get('/api/v4/version', { token: ROOT_TOKEN, body: 'x'.repeat(3000), headers: { 'content-type': 'text/plain' } });
    assert.equal(over.statusCode, 413);
    assert.deepEqual(over.json(), { message: '413 Request Entity Too Large' });
    const within = await small.get('/api/v4/version', { token: ROOT_TOKEN, body: 'x'.repeat(1000), headers: { 'content-type': 'text/plain' } });
    assert.equal(within.statusCode, 200);
  } finally {
    await small.close();
  }
});
