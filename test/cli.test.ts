// The command line and the server process, as an operator uses them.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { freePort } from './listening.ts';
import { parsePrometheus } from './prometheus.ts';
import { MAIN } from './server-process.ts';

const pgUrl = process.env.DATABASE_URL;
let dataDir: string;
let env: Record<string, string>;
let pgDatabase: string | null = null;

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(sql);
  await client.end();
}

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-cli-'));
  // The built-in runner is tested on its own (test/runner), and so is the SSH server (src/ssh): these servers run without them.
  env = { ...process.env, QUARRY_DATA_DIR: dataDir, QUARRY_LOG_LEVEL: 'info', QUARRY_PASSWORD_HASH_COST: '1024', QUARRY_BUILTIN_RUNNER: '0', QUARRY_SSH_PORT: '0' } as Record<string, string>;
  delete env.QUARRY_ROOT_TOKEN;
  if (pgUrl) {
    // The CLI opens its own database: give it a fresh one.
    pgDatabase = `quarry_cli_${process.pid}`;
    await adminQuery(`create database ${pgDatabase}`);
    const url = new URL(pgUrl);
    url.pathname = `/${pgDatabase}`;
    env.DATABASE_URL = url.toString();
  } else {
    delete env.DATABASE_URL;
  }
});

after(async () => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (pgDatabase) await adminQuery(`drop database if exists ${pgDatabase} with (force)`);
});

function quarry(...args: string[]) {
  return spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
}

function get(port: number, target: string, token?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: target, headers: token ? { 'private-token': token } : {} }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

async function waitReady(port: number, child: ChildProcess): Promise<void> {
  // Up to a minute: a busy machine starts two workers slowly (each compiles every module).
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (child.exitCode !== null) throw new Error('server exited early');
    try {
      if ((await get(port, '/-/readiness')).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('server did not become ready');
}

test('migrate creates the schema, then reports it up to date', () => {
  const first = quarry('migrate');
  assert.equal(first.status, 0, first.stderr);
  assert.match(first.stdout, /applied: 0001_users_and_tokens/);
  const second = quarry('migrate');
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /schema is up to date/);
});

test('create-user and create-token issue working credentials', async () => {
  const user = quarry('create-user', '--username', 'ops', '--email', 'ops@example.com', '--name', 'Ops', '--password', 'ops-password-1');
  assert.equal(user.status, 0, user.stderr);
  assert.match(user.stdout, /created user ops \(id \d+\)/);
  const dup = quarry('create-user', '--username', 'OPS', '--email', 'other@example.com');
  assert.equal(dup.status, 1);
  assert.match(dup.stderr, /Username has already been taken/);
  const token = quarry('create-token', '--user', 'ops', '--scopes', 'read_api,read_user');
  assert.equal(token.status, 0, token.stderr);
  assert.match(token.stdout.trim(), /^glpat-[A-Za-z0-9_-]{20}$/);
  assert.equal(quarry('create-token', '--user', 'nobody', '--scopes', 'api').status, 1);
  assert.match(quarry('create-token', '--user', 'ops', '--scopes', 'everything').stderr, /unknown scopes: everything/);
});

test('a bad environment value stops the server with a one-line reason', () => {
  const res = spawnSync(process.execPath, [MAIN, 'serve'], { env: { ...env, PORT: 'abc' }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(res.status, 1);
  assert.equal(res.stderr.trim(), 'quarry: PORT must be a whole number, got "abc"');
});

test('serve: root token file, authenticated requests, graceful stop on SIGTERM', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  // On a failure (a server that never becomes ready), it is not left behind.
  t.after(() => child.kill('SIGKILL'));
  let log = '';
  child.stdout?.on('data', (c) => (log += c));
  await waitReady(port, child);
  const tokenFile = path.join(dataDir, 'initial_root_token');
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  const me = await get(port, '/api/v4/user', token);
  assert.equal(me.status, 200);
  assert.equal(JSON.parse(me.body).username, 'root');
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  // Logs are JSON lines carrying the request id.
  const lines = log.trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.some((l) => typeof l.reqId === 'string' && l.req?.url === '/api/v4/user'));
});

/** A JSON POST on a connection of its own, so that the server's processes share the requests. */
function post(port: number, target: string, token: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: target, method: 'POST', agent: false, headers: { 'private-token': token, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

function childPids(pid: number): number[] {
  const ps = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return ps.stdout.split('\n').map((l) => Number(l.trim())).filter((n) => n > 0);
}

test('serve with QUARRY_WORKERS=2: processes share the port and the database, a dead one is replaced, SIGTERM stops all', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: { ...env, PORT: String(port), QUARRY_WORKERS: '2' }, stdio: ['ignore', 'pipe', 'pipe'] });
  // On a failure: workers whose supervisor is gone end by themselves.
  t.after(() => child.kill('SIGKILL'));
  let log = '';
  child.stdout?.on('data', (c) => (log += c));
  await waitReady(port, child);
  const token = fs.readFileSync(path.join(dataDir, 'initial_root_token'), 'utf8').trim();
  // Both workers listen before the load: the readiness probe may have reached the first alone.
  for (let i = 0; i < 200 && childPids(child.pid!).length < 2; i++) await new Promise((r) => setTimeout(r, 25));
  const workers = childPids(child.pid!);
  assert.equal(workers.length, 2);

  // Writes racing over separate connections, handed to both processes in turn: none is lost.
  const names = Array.from({ length: 24 }, (_, i) => `workers-${i}`);
  const created = await Promise.all(names.map((name) => post(port, '/api/v4/groups', token, { name, path: name })));
  assert.deepEqual(created.map((r) => r.status), names.map(() => 201), created.map((r) => r.body).join('\n'));
  const listed = JSON.parse((await get(port, '/api/v4/groups?search=workers-&per_page=100', token)).body) as Array<{ path: string }>;
  assert.deepEqual(listed.map((g) => g.path).sort(), [...names].sort());
  // The metrics of both processes, summed by the supervisor, whichever process a scrape reaches.
  for (let i = 0; i < 3; i++) {
    const scrape = await get(port, '/-/metrics');
    assert.equal(scrape.status, 200);
    assert.equal(parsePrometheus(scrape.body).value('quarry_http_requests_total', { route: '/api/v4/groups', method: 'POST', status: '201' }), 24);
  }

  // A worker that dies while serving is replaced.
  process.kill(workers[0], 'SIGKILL');
  let replaced = childPids(child.pid!);
  for (let i = 0; i < 200 && !(replaced.length === 2 && !replaced.includes(workers[0])); i++) {
    await new Promise((r) => setTimeout(r, 25));
    replaced = childPids(child.pid!);
  }
  assert.equal(replaced.length, 2);
  assert.ok(!replaced.includes(workers[0]));
  await waitReady(port, child);
  assert.equal((await get(port, '/api/v4/user', token)).status, 200);

  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.deepEqual(childPids(child.pid!), []);
  const lines = log.trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(lines.some((l) => l.msg === 'a server process exited; starting another'));
});

/**
 * A connection that sends a request's headers and the start of a 100-byte body, then nothing, or
 * (drip) one more byte every 200 ms, so that it is never idle and never done.
 */
async function stalledRequest(port: number, drip = false): Promise<{ closed: Promise<string> }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('POST /api/v4/groups HTTP/1.1\r\nHost: quarry.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na');
  let answer = '';
  socket.on('data', (c: Buffer) => (answer += c));
  socket.on('error', () => {});
  const dripping = drip ? setInterval(() => socket.write(' '), 200) : undefined;
  return {
    closed: new Promise((resolve) =>
      socket.once('close', () => {
        clearInterval(dripping);
        resolve(answer);
      }),
    ),
  };
}

test('serve: a client that stops sending is let go, and SIGTERM waits for it no longer than the deadline', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve'], {
    env: { ...env, PORT: String(port), QUARRY_IDLE_TIMEOUT: '1', QUARRY_SHUTDOWN_TIMEOUT: '1', QUARRY_LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  t.after(() => child.kill('SIGKILL'));
  await waitReady(port, child);

  const started = Date.now();
  await (await stalledRequest(port)).closed;
  const waited = Date.now() - started;
  assert.ok(waited >= 900 && waited < 5000, `closed after ${waited} ms`);

  // SIGTERM with a request in flight that never ends: closed at the latest at the deadline, and the process ends.
  const stalled = await stalledRequest(port, true);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stopAt = Date.now();
  child.kill('SIGTERM');
  await stalled.closed;
  await exited;
  assert.ok(Date.now() - stopAt < 5000, `stopped after ${Date.now() - stopAt} ms`);
});

test('serve: SIGTERM lets go at once of connections without a request, and of kept-alive ones once answered', async (t) => {
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: { ...env, PORT: String(port), QUARRY_LOG_LEVEL: 'silent' }, stdio: 'ignore' });
  t.after(() => child.kill('SIGKILL'));
  await waitReady(port, child);
  // A connection that never sends anything, and one that began a request and went quiet.
  const quiet = net.connect(port, '127.0.0.1');
  const begun = net.connect(port, '127.0.0.1');
  await Promise.all([quiet, begun].map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
  begun.write('GET /-/liveness HTTP/1.1\r\nHo');
  // A kept-alive connection whose request is answered while the server stops.
  const agent = new http.Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const answered = new Promise<number | undefined>((resolve, reject) => {
    http.get({ port, host: '127.0.0.1', path: '/-/liveness', agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
  assert.equal(await answered, 200);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const stopAt = Date.now();
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  // The deadline is 30 s: nothing waited for it.
  assert.ok(Date.now() - stopAt < 5000, `stopped after ${Date.now() - stopAt} ms`);
});

test('serve with QUARRY_WORKERS=2 stops with an error when the workers cannot listen', async () => {
  const port = await freePort();
  const blocker = http.createServer();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  try {
    const res = spawnSync(process.execPath, [MAIN, 'serve'], { env: { ...env, PORT: String(port), QUARRY_WORKERS: '2' }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(res.status, 1);
    assert.match(res.stdout, /a server process failed to start/);
  } finally {
    blocker.close();
  }
});

test('reset empties the data and the repositories, and recreates root', async () => {
  const repository = path.join(dataDir, 'repositories', '@hashed', 'ab', 'cd', 'abcd.git');
  fs.mkdirSync(repository, { recursive: true });
  fs.writeFileSync(path.join(repository, 'HEAD'), 'ref: refs/heads/main\n');
  const res = quarry('reset', '--yes');
  assert.equal(fs.existsSync(repository), false, 'repositories are removed');
  assert.equal(res.status, 0, res.stderr);
  assert.match(res.stdout, /data reset/);
  const token = quarry('create-token', '--user', 'ops', '--scopes', 'api');
  assert.equal(token.status, 1, 'ops is gone after reset');
  assert.equal(quarry('create-token', '--user', 'root', '--scopes', 'api').status, 0);
});
