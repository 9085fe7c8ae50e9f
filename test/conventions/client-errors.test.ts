// Requests the HTTP parser cannot read, over a real socket: the answer is the platform's plain text
// with the status's words, never Fastify's own JSON body, and the connection closes.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { TestApp } from '../harness.ts';
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
