// The object readers: a reader killed or hung mid-request is replaced and the request answered; a
// repository deleted (or replaced) under its reader; repositories sharing object ids; a blob
// larger than what the cache keeps; objects pushed while a reader is open; the process cap under
// a burst of repositories; and no process left behind.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createCommit, getBlob, getCommit, readBlob } from './commits.ts';
import { ByteCache, objectCache } from './object-cache.ts';
import { MAX_CACHED_BLOB, objectKey } from './objects.ts';
import { ReaderPool, closeReaders, openRepository, readers as defaultReaders } from './reader-pool.ts';
import { resolveCommit } from './refs.ts';
import { createRepository } from './repository.ts';
import { GitError, runGit } from './run.ts';

let root: string;
const author = { name: 'Ada', email: 'ada@example.com' };
const date = new Date('2024-01-02T03:04:05.000Z');
const pools: ReaderPool[] = [];

/** A pool of the test's own, closed at the end. */
function pool(options: ConstructorParameters<typeof ReaderPool>[0] = {}): ReaderPool {
  const made = new ReaderPool(options);
  pools.push(made);
  return made;
}

/** A repository with one commit holding these files; the same files and date give the same ids. */
async function repository(name: string, files: Record<string, string | Buffer> = { 'README.md': '# hello\n' }): Promise<{ dir: string; head: string }> {
  const dir = path.join(root, `${name}.git`);
  await createRepository(dir, { defaultBranch: 'main' });
  const actions = Object.entries(files).map(([p, content]) => ({ action: 'create' as const, path: p, content }));
  const { id } = await createCommit(dir, { branch: 'main', actions, message: 'files', author, date });
  return { dir, head: id };
}

/** The pids of the server's own pool. */
const serverReaderPids = () => defaultReaders.processes.map((reader) => reader.pid);

const alive = (pid: number | undefined) => {
  try {
    process.kill(pid as number, 0);
    return true;
  } catch {
    return false;
  }
};

before(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-git-readers-'));
});
after(async () => {
  await Promise.all([...pools.map((p) => p.close()), closeReaders()]);
  fs.rmSync(root, { recursive: true, force: true });
});

test('a reader killed mid-request: the request is answered by a fresh reader', async () => {
  const big = Buffer.alloc(8 * 1024 * 1024, 'x');
  const { dir } = await repository('killed', { 'big.bin': big });
  const readers = pool();
  const blob = (await readers.info(openRepository(dir), 'main:big.bin'))!;
  const first = readers.processes[0];
  const reading = readers.contents(openRepository(dir), blob.id);
  process.kill(first.pid as number, 'SIGKILL');
  const answer = await reading;
  assert.equal(answer?.content.length, big.length);
  assert.ok(answer?.content.equals(big));
  assert.equal(readers.processes.length, 1);
  assert.notEqual(readers.processes[0], first);
});

test('a reader that hangs is killed at the time limit and the request answered by a fresh one', async () => {
  const { dir, head } = await repository('hung');
  const readers = pool({ timeoutMs: 300 });
  await readers.info(openRepository(dir), head);
  const stuck = readers.processes[0];
  process.kill(stuck.pid as number, 'SIGSTOP');
  const started = Date.now();
  assert.equal((await readers.info(openRepository(dir), 'main^{commit}'))?.id, head);
  assert.ok(Date.now() - started >= 300);
  await stuck.exited;
  assert.equal(alive(stuck.pid), false);
});

test('a repository whose reads hang on every reader fails the request cleanly with a timeout', async () => {
  const { dir, head } = await repository('hung-twice');
  // git opens the alternates file at its first object lookup: a FIFO nobody writes to never opens.
  execFileSync('mkfifo', [path.join(dir, 'objects', 'info', 'alternates')]);
  const readers = pool({ timeoutMs: 200 });
  const started = Date.now();
  await assert.rejects(readers.info(openRepository(dir), head), (e: unknown) => e instanceof GitError && e.kind === 'timeout');
  assert.ok(Date.now() - started >= 400);
  await Promise.all(readers.processes.map((reader) => reader.exited));
  assert.equal(readers.processes.length, 0);
});

test('a repository deleted while its reader is open: reads fail cleanly; one made again at the path gets a reader of its own', async () => {
  const { dir, head } = await repository('deleted', { 'a.txt': 'one' });
  const readers = pool();
  const before = openRepository(dir);
  assert.equal((await readers.info(before, head))?.type, 'commit');
  const reader = readers.processes[0];
  fs.rmSync(dir, { recursive: true, force: true });
  await assert.rejects(async () => readers.info(openRepository(dir), head), GitError);
  await assert.rejects(readBlob(dir, head, 'a.txt'), GitError);
  await assert.rejects(resolveCommit(dir, 'main'), GitError);

  const again = await repository('deleted', { 'b.txt': 'two' });
  assert.equal((await readers.info(openRepository(again.dir), 'main:b.txt'))?.type, 'blob');
  assert.equal(await readers.info(openRepository(again.dir), 'main:a.txt'), null);
  await reader.exited;
  // An operation that opened the old repository before it went reads the one there now.
  assert.equal((await readers.info(before, 'main:b.txt'))?.type, 'blob');
  assert.equal(readers.processes.length, 1);
});

test('a revision git would die on (an upstream) never reaches the shared reader; reflog forms answer as rev-parse does', async () => {
  const { dir, head } = await repository('upstream');
  assert.equal(await resolveCommit(dir, 'main'), head);
  const before = serverReaderPids();
  await assert.rejects(resolveCommit(dir, 'main@{u}'), GitError);
  assert.equal(await resolveCommit(dir, 'main@{5}'), null);
  assert.equal(await resolveCommit(dir, 'main'), head);
  assert.deepEqual(serverReaderPids(), before);
});

test('two repositories with the same object ids: each reads only its own objects, also through the cache', async () => {
  const a = await repository('same-a');
  const b = await repository('same-b');
  assert.equal(a.head, b.head);
  const extra = (await createCommit(b.dir, { branch: 'main', actions: [{ action: 'create', path: 'secret.txt', content: 'b only' }], message: 'more', author, date })).id;
  const secret = (await readBlob(b.dir, extra, 'secret.txt'))!;
  assert.equal(secret.content.toString(), 'b only');
  assert.equal(await getBlob(a.dir, secret.id), null);
  assert.equal(await getCommit(a.dir, extra), null);
  assert.equal((await getCommit(a.dir, a.head))?.id, a.head);
});

test('a blob larger than the cache keeps is read whole every time, and not kept', async () => {
  const content = Buffer.alloc(MAX_CACHED_BLOB + 1, 'y');
  const { dir, head } = await repository('large', { 'large.bin': content });
  for (let i = 0; i < 2; i++) assert.ok((await readBlob(dir, head, 'large.bin'))?.content.equals(content));
  const { id } = (await readBlob(dir, head, 'large.bin'))!;
  assert.equal(objectCache.get(objectKey(openRepository(dir), 'blob', id)), undefined);
  await assert.rejects(readBlob(dir, head, 'large.bin', { maxBytes: MAX_CACHED_BLOB }), (e: unknown) => e instanceof GitError && e.kind === 'output_limit');
});

test('the byte cache: least recently used out first, within its budget; an entry too large for it is not kept', () => {
  const cache = new ByteCache(8_000);
  cache.set('a', 'A', 400);
  cache.set('b', 'B', 400);
  cache.get('a');
  for (let i = 0; i < 20; i++) cache.set(`k${i}`, i, 400);
  assert.ok(cache.size <= 8_000);
  assert.equal(cache.get('b'), undefined);
  cache.set('huge', 'H', 2_000);
  assert.equal(cache.get('huge'), undefined);
});

test('objects a push writes while a reader is open are seen by the next read, loose or packed', async () => {
  const { dir, head } = await repository('pushed', { 'a.txt': 'one' });
  assert.equal(await resolveCommit(dir, 'main'), head);
  assert.equal((await readBlob(dir, 'main', 'a.txt'))?.content.toString(), 'one');

  // Loose objects: a commit written by the API's own path.
  const loose = await createCommit(dir, { branch: 'main', actions: [{ action: 'update', path: 'a.txt', content: 'two' }], message: 'two', author, date });
  assert.equal(await resolveCommit(dir, 'main'), loose.id);
  assert.equal((await readBlob(dir, 'main', 'a.txt'))?.content.toString(), 'two');

  // A pack: a push from a clone, received as a pack however small.
  const work = path.join(root, 'work');
  const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: root, GIT_AUTHOR_NAME: 'A', GIT_AUTHOR_EMAIL: 'a@x', GIT_COMMITTER_NAME: 'A', GIT_COMMITTER_EMAIL: 'a@x' };
  execFileSync('git', ['clone', '--quiet', dir, work], { env });
  fs.writeFileSync(path.join(work, 'b.txt'), 'packed');
  execFileSync('git', ['add', 'b.txt'], { cwd: work, env });
  execFileSync('git', ['commit', '--quiet', '-m', 'packed'], { cwd: work, env });
  execFileSync('git', ['push', '--quiet', '--receive-pack=git -c receive.unpackLimit=1 receive-pack', 'origin', 'main'], { cwd: work, env });
  assert.ok(fs.readdirSync(path.join(dir, 'objects', 'pack')).some((f) => f.endsWith('.pack')));
  const pushed = (await runGit(dir, ['rev-parse', 'main'])).stdout.toString().trim();
  assert.equal(await resolveCommit(dir, 'main'), pushed);
  assert.equal((await readBlob(dir, 'main', 'b.txt'))?.content.toString(), 'packed');

  // Refs packed, then moved and deleted: each read sees them as they are.
  await runGit(dir, ['branch', 'other', head]);
  assert.equal(await resolveCommit(dir, 'other'), head);
  await runGit(dir, ['pack-refs', '--all']);
  await runGit(dir, ['update-ref', 'refs/heads/other', loose.id]);
  assert.equal(await resolveCommit(dir, 'other'), loose.id);
  await runGit(dir, ['update-ref', '-d', 'refs/heads/other']);
  assert.equal(await resolveCommit(dir, 'other'), null);
});

test('the process cap holds under a burst of repositories, and every read is answered', async () => {
  const repos = await Promise.all(Array.from({ length: 12 }, (_, i) => repository(`burst-${i}`, { [`f${i}.txt`]: `file ${i}` })));
  const readers = pool({ maxProcesses: 3 });
  let most = 0;
  const sampler = setInterval(() => (most = Math.max(most, readers.processes.length)), 1);
  try {
    const [infos, contents] = await Promise.all([
      Promise.all(repos.flatMap(({ dir, head }, i) => [readers.info(openRepository(dir), head), readers.info(openRepository(dir), `main:f${i}.txt`)])),
      Promise.all(repos.map(({ dir }, i) => readers.contents(openRepository(dir), `main:f${i}.txt`))),
    ]);
    assert.ok(infos.every((info) => info !== null));
    assert.deepEqual(contents.map((c) => c?.content.toString()), repos.map((_, i) => `file ${i}`));
  } finally {
    clearInterval(sampler);
  }
  assert.ok(most <= 3, `${most} processes`);
  assert.ok(readers.processes.length <= 3);
});

test('closing the pool ends every reader; idle readers end by themselves', async () => {
  const { dir, head } = await repository('closing');
  const readers = pool({ idleMs: 50 });
  await readers.info(openRepository(dir), head);
  const pid = readers.processes[0].pid;
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(readers.processes.length, 0);
  assert.equal(alive(pid), false);

  await readers.info(openRepository(dir), head);
  const again = readers.processes[0].pid;
  // What was asked before the close is answered.
  const inFlight = Array.from({ length: 20 }, () => readers.contents(openRepository(dir), head));
  await new Promise((resolve) => setImmediate(resolve));
  await readers.close();
  assert.ok((await Promise.all(inFlight)).every((object) => object?.id === head));
  assert.equal(readers.processes.length, 0);
  assert.equal(alive(again), false);
});
