// Smart HTTP without HTTP: the Git-Protocol header, pkt-lines, the advertisement of each protocol,
// and request bodies that are gzipped, too large, or cut short.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { after, before, test } from 'node:test';
import { createRepository } from './repository.ts';
import { advertiseRefs, gitProtocol, pktLine, serviceRpc } from './smart-http.ts';

let root: string;
let repo: string;
let head: string;

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-smart-http-'));
  repo = path.join(root, 'repo.git');
  head = (await createRepository(repo, { defaultBranch: 'main', readme: { content: '# r\n', message: 'Initial commit', author: { name: 'A', email: 'a@example.com' } } })) as string;
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

test('Git-Protocol: only a version reaches git', () => {
  const table: [string | string[] | undefined, string | null][] = [
    [undefined, null],
    ['', null],
    ['version=2', 'version=2'],
    ['version=1', 'version=1'],
    ['version=2:object-format=sha1', 'version=2'],
    [['version=1', 'version=2'], 'version=2'],
    ['version=0', null],
    ['version=3', null],
    ['version=2\nGIT_TRACE=1', null],
    ['--upload-pack=x', null],
  ];
  for (const [header, expected] of table) assert.equal(gitProtocol(header), expected, JSON.stringify(header));
});

test('pkt-lines count their own length', () => {
  assert.equal(pktLine('# service=git-upload-pack\n').toString(), '001e# service=git-upload-pack\n');
  assert.equal(pktLine('').toString(), '0004');
});

test('the advertisement: announced for v0, not for v2', async () => {
  const v0 = await text((await advertiseRefs(repo, 'git-upload-pack', { protocol: null }).output) as Readable);
  assert.ok(v0.startsWith('001e# service=git-upload-pack\n0000'));
  assert.ok(v0.includes(`${head} HEAD\0`));
  const v2 = await text((await advertiseRefs(repo, 'git-receive-pack', { protocol: 'version=2' }).output) as Readable);
  // receive-pack speaks v0 whatever the client asks, unannounced here as git http-backend does.
  assert.ok(v2.startsWith(`00`) && v2.includes(`${head} refs/heads/main`) && !v2.includes('# service='));
});


test('an RPC reads a gzipped body and answers', async () => {
  const body = gzipSync(Buffer.from(`0032want ${head}\n00000009done\n`));
  const session = serviceRpc(repo, 'git-upload-pack', { body: Readable.from([body]), gzip: true, maxBytes: 1024 }, { protocol: null });
  const answer = Buffer.concat(await (await session.output)!.toArray());
  assert.equal(answer.subarray(0, 8).toString(), '0008NAK\n');
  assert.equal((await session.done).inputCut, null);
});

test('a body past the limit is cut, git ends, and nothing is answered', async () => {
  const haves = Buffer.from(`0032have ${'1'.repeat(40)}\n`.repeat(100));
  const body = Readable.from([Buffer.from(`0032want ${head}\n0000`), haves, haves, haves]);
  const session = serviceRpc(repo, 'git-upload-pack', { body, gzip: false, maxBytes: 8 * 1024 }, { protocol: null });
  assert.equal(await session.output, null);
  const exit = await session.done;
  assert.equal(exit.inputCut, 'too_large');
  assert.notEqual(exit.exitCode, 0);
});

test('a body that is not gzip is unreadable', async () => {
  const session = serviceRpc(repo, 'git-upload-pack', { body: Readable.from([Buffer.from('plain text')]), gzip: true, maxBytes: 1024 }, { protocol: null });
  assert.equal(await session.output, null);
  assert.equal((await session.done).inputCut, 'unreadable');
});

test('a body that stops short ends git', async () => {
  const body = new Readable({ read() {} });
  const session = serviceRpc(repo, 'git-upload-pack', { body, gzip: false, maxBytes: 1024 }, { protocol: null });
  body.push(Buffer.from(`0032want ${head}\n`));
  setTimeout(() => body.destroy(new Error('client went away')), 50);
  assert.equal(await session.output, null);
  assert.equal((await session.done).inputCut, 'aborted');
});

test('beforeEnd runs once git has exited, before the answer ends', async () => {
  const order: string[] = [];
  const body = Readable.from([Buffer.from(`0032want ${head}\n00000009done\n`)]);
  const session = serviceRpc(repo, 'git-upload-pack', { body, gzip: false, maxBytes: 1024 }, {
    protocol: null,
    beforeEnd: async (exit) => {
      order.push(`beforeEnd ${exit.exitCode}`);
    },
  });
  const output = (await session.output) as Readable;
  output.on('end', () => order.push('end'));
  output.resume();
  await session.done;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, ['beforeEnd 0', 'end']);
});
