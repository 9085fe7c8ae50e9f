// Ephemeral mode as a test suite uses it: `quarry serve --ephemeral` (QUARRY_EPHEMERAL=1) in a
// process of its own, its ready line, its temporary directory, the start seed, reset; and
// `quarry seed FILE` against a configured data directory.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { MAIN } from './server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/quarry');
let scratch: string;
let env: Record<string, string>;

const SEED = `
users:
  - username: alice
    tokens: [{ name: ci, value: glpat-alice-fixture-token-01 }]
groups:
  - path: acme
    members: [{ user: alice, access_level: developer }]
projects:
  - path: acme/widgets
    files: [{ path: app.py, content: "print('hi')\\n" }]
    branches: [{ name: feature }]
`;

before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ephemeral-test-'));
  env = { ...process.env } as Record<string, string>;
  for (const name of Object.keys(env)) if (name.startsWith('QUARRY_')) delete env[name];
  // The server started here in the ordinary mode would listen for SSH on 2222, which other servers of the suite may hold.
  env.QUARRY_SSH_PORT = '0';
  // `quarry seed` below writes to the database it is given: a SQLite file of its own, never the suite's PostgreSQL.
  delete env.DATABASE_URL;
  // The temporary directories of the servers started here: TMPDIR is the parent of each.
  env.TMPDIR = path.join(scratch, 'tmp');
  // Node's compile cache stays where it was (it would otherwise follow TMPDIR and start cold).
  env.NODE_COMPILE_CACHE ??= path.join(os.tmpdir(), 'node-compile-cache');
  fs.mkdirSync(env.TMPDIR);
  fs.writeFileSync(path.join(scratch, 'seed.yaml'), SEED);
});

/** Every server started here, killed at the end if a failure left it running. */
const servers = new Set<ChildProcess>();

after(() => {
  for (const child of servers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** The servers' temporary directories under TMPDIR. */
const ephemeralDirs = () => fs.readdirSync(env.TMPDIR).filter((name) => name.startsWith('quarry-ephemeral-'));

interface Ready {
  msg: 'ready';
  url: string;
  token: string;
  tokens: Record<string, string>;
  data_dir: string;
  pid: number;
  /** Only when the SSH server is on. */
  ssh_port?: number;
}

interface Server {
  child: ChildProcess;
  ready: Ready;
  /** Milliseconds from spawn to the first 200 from /-/readiness. */
  startMs: number;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

async function startServer(args: string[], extra: Record<string, string> = {}, command: string[] = [process.execPath, MAIN]): Promise<Server> {
  const started = performance.now();
  const child = spawn(command[0], [...command.slice(1), 'serve', ...args], { env: { ...env, PORT: '0', ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
  servers.add(child);
  let output = '';
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let ready: Ready | null = null;
  for await (const line of createInterface({ input: child.stdout! })) {
    output += `${line}\n`;
    const event = JSON.parse(line);
    if (event.msg === 'ready') {
      ready = event as Ready;
      break;
    }
  }
  child.stdout!.on('data', (c) => (output += c));
  child.stdout!.resume();
  if (!ready) throw new Error(`no ready line:\n${output}`);
  const answered = (await request(ready.url, 'GET', '/-/readiness')).status;
  assert.equal(answered, 200);
  const startMs = performance.now() - started;
  return {
    child,
    ready,
    startMs,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

function request(base: string, method: string, target: string, token?: string, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(target, base), { method, headers: { ...(token ? { 'private-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {}
        resolve({ status: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

test('ephemeral: a ready line with the URL and root token, nothing under QUARRY_DATA_DIR, DATABASE_URL ignored, the directory gone after SIGTERM', async () => {
  const dataDir = path.join(scratch, 'data');
  fs.mkdirSync(dataDir);
  const server = await startServer([], { QUARRY_EPHEMERAL: '1', QUARRY_DATA_DIR: dataDir, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/nothing' });
  process.stdout.write(`# ephemeral start, spawn to the first 200 from /-/readiness: ${server.startMs.toFixed(0)} ms\n`);
  const { url, token, data_dir: tempDir } = server.ready;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.notEqual(url, 'http://127.0.0.1:0');
  assert.ok(tempDir.startsWith(env.TMPDIR), tempDir);
  assert.ok(fs.existsSync(tempDir));
  const me = await request(url, 'GET', '/api/v4/user', token);
  assert.equal(me.status, 200);
  assert.equal(me.body.username, 'root');
  const project = await request(url, 'POST', '/api/v4/projects', token, { name: 'scratch', initialize_with_readme: true });
  assert.equal(project.status, 201);
  assert.equal(project.body.web_url, `${url}/root/scratch`);
  assert.match(server.output(), /DATABASE_URL is ignored in ephemeral mode/);
  // No SSH server unless asked: test instances never contend for its port.
  assert.equal(server.ready.ssh_port, undefined);
  assert.equal(project.body.ssh_url_to_repo, 'git@127.0.0.1:root/scratch.git');

  assert.equal(await server.stop('SIGTERM'), 0);
  assert.deepEqual(filesUnder(dataDir), [], 'nothing is written under QUARRY_DATA_DIR');
  assert.equal(fs.existsSync(tempDir), false, 'the temporary directory is removed');
  assert.deepEqual(ephemeralDirs(), []);
});

test('ephemeral: SIGINT through bin/quarry, and QUARRY_ROOT_TOKEN as the token of the ready line', async () => {
  const rootToken = 'glpat-fixture-root-token-0001';
  const server = await startServer(['--ephemeral'], { QUARRY_ROOT_TOKEN: rootToken }, [BIN]);
  assert.equal(server.ready.token, rootToken);
  assert.equal((await request(server.ready.url, 'GET', '/api/v4/user', rootToken)).status, 200);
  await server.stop('SIGINT');
  // The wrapper passed the signal on: the server stopped and removed its directory.
  for (let i = 0; i < 100 && fs.existsSync(server.ready.data_dir); i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(fs.existsSync(server.ready.data_dir), false);
  assert.throws(() => process.kill(server.ready.pid, 0), /ESRCH/);
});

test('ephemeral: a failed start removes the directory; several workers, a bad seed and quarry seed are refused with their reasons', async () => {
  const blocker = http.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = String((blocker.address() as { port: number }).port);
  try {
    const res = spawnSync(process.execPath, [MAIN, 'serve', '--ephemeral'], { env: { ...env, PORT: port }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /EADDRINUSE/);
    assert.deepEqual(ephemeralDirs(), []);
  } finally {
    blocker.close();
  }

  const workers = spawnSync(process.execPath, [MAIN, 'serve', '--ephemeral'], { env: { ...env, QUARRY_WORKERS: '2' }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(workers.status, 1);
  assert.equal(workers.stderr, 'quarry: QUARRY_EPHEMERAL keeps the database in one process\'s memory: QUARRY_WORKERS must be 1, got 2\n');

  const badSeed = path.join(scratch, 'bad.yaml');
  fs.writeFileSync(badSeed, 'users:\n  - username: x\n    admin: sure\nprojects: [{ path: nope }]\n');
  const bad = spawnSync(process.execPath, [MAIN, 'serve', '--ephemeral', '--seed', badSeed], { env, encoding: 'utf8', timeout: 60_000 });
  assert.equal(bad.status, 1);
  const lines = bad.stderr.trim().split('\n');
  assert.ok(lines.length >= 2, bad.stderr);
  assert.ok(lines.every((l) => l.startsWith('quarry: bad.yaml: ')), bad.stderr);
  assert.ok(lines.some((l) => l.startsWith('quarry: bad.yaml: users[0].admin: ')), bad.stderr);
  assert.ok(lines.some((l) => l.startsWith('quarry: bad.yaml: projects[0].path: ')), bad.stderr);
  assert.deepEqual(ephemeralDirs(), []);

  const seed = spawnSync(process.execPath, [MAIN, 'seed', path.join(scratch, 'seed.yaml')], { env: { ...env, QUARRY_EPHEMERAL: '1' }, encoding: 'utf8', timeout: 60_000 });
  assert.equal(seed.status, 1);
  assert.match(seed.stderr, /quarry serve --ephemeral --seed FILE/);
});

test('ephemeral with --seed: the seeded instance, and reset returns to it', async () => {
  const server = await startServer(['--ephemeral', '--seed', path.join(scratch, 'seed.yaml')]);
  const { url, token } = server.ready;
  try {
    const alice = 'glpat-alice-fixture-token-01';
    assert.equal((await request(url, 'GET', '/api/v4/user', alice)).body.username, 'alice');
    const project = await request(url, 'GET', '/api/v4/projects/acme%2Fwidgets', alice);
    assert.equal(project.status, 200);
    const id = project.body.id;
    const description = project.body.description;
    // A test's changes…
    assert.equal((await request(url, 'POST', `/api/v4/projects/${id}/repository/branches`, token, { branch: 'scratch', ref: 'main' })).status, 201);
    assert.equal((await request(url, 'POST', '/api/v4/groups', token, { name: 'other', path: 'other' })).status, 201);
    assert.equal((await request(url, 'PUT', `/api/v4/projects/${id}`, token, { description: 'changed' })).status, 200);
    // …and the next test starts from the seeded state again.
    const started = performance.now();
    const reset = await request(url, 'POST', '/-/test/reset', token);
    const took = performance.now() - started;
    assert.equal(reset.status, 200);
    process.stdout.write(`# reset over HTTP with a seeded project: ${took.toFixed(1)} ms (server-side ${reset.body.duration_ms} ms)\n`);
    const branches = await request(url, 'GET', `/api/v4/projects/${id}/repository/branches`, alice);
    assert.deepEqual((branches.body as { name: string }[]).map((b) => b.name).sort(), ['feature', 'main']);
    assert.equal((await request(url, 'GET', `/api/v4/projects/${id}`, alice)).body.description, description);
    assert.equal((await request(url, 'GET', '/api/v4/groups/other', token)).status, 404);
    const file = await request(url, 'GET', `/api/v4/projects/${id}/repository/files/app.py/raw?ref=feature`, alice);
    assert.equal(file.body, "print('hi')\n");
  } finally {
    assert.equal(await server.stop(), 0);
  }
});

test('quarry seed FILE: against the configured data directory, a second run changes nothing', () => {
  const dataDir = path.join(scratch, 'seeded');
  const run = () => spawnSync(process.execPath, [MAIN, 'seed', path.join(scratch, 'seed.yaml')], { env: { ...env, QUARRY_DATA_DIR: dataDir, QUARRY_PASSWORD_HASH_COST: '1024' }, encoding: 'utf8', timeout: 60_000 });
  const first = run();
  assert.equal(first.status, 0, first.stderr);
  assert.deepEqual(first.stdout.trim().split('\n'), [
    'created user alice',
    'created token alice/ci',
    'created group acme',
    'created member alice of acme',
    'created project acme/widgets',
    'created file acme/widgets:main:app.py',
    'created branch acme/widgets:feature',
  ]);
  const second = run();
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.stdout.trim(), 'nothing to do: everything seed.yaml describes exists');
  assert.ok(fs.existsSync(path.join(dataDir, 'quarry.sqlite3')));
});

test('QUARRY_SEED in the ordinary mode: applied at every start, which changes nothing once it has been', async () => {
  // (The load shedding of a late loop is off: a busy machine would answer 503, which is not what this tests.)
  const { freePort } = await import('./listening.ts');
  const dataDir = path.join(scratch, 'seeded-at-start');
  for (const round of [1, 2]) {
    const port = await freePort();
    const child = spawn(process.execPath, [MAIN, 'serve'], {
      env: { ...env, PORT: String(port), QUARRY_DATA_DIR: dataDir, QUARRY_SEED: path.join(scratch, 'seed.yaml'), QUARRY_PASSWORD_HASH_COST: '1024', QUARRY_LOG_LEVEL: 'silent', QUARRY_OVERLOAD_LAG: '0' },
      stdio: 'ignore',
    });
    servers.add(child);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      let status = 0;
      for (let i = 0; i < 600 && status !== 200 && child.exitCode === null; i++) {
        status = await request(`http://127.0.0.1:${port}`, 'GET', '/-/readiness').then((r) => r.status, () => 0);
        if (status !== 200) await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(status, 200, `round ${round}: the server answers`);
      const projects = await request(`http://127.0.0.1:${port}`, 'GET', '/api/v4/projects?search=widgets', 'glpat-alice-fixture-token-01');
      assert.deepEqual((projects.body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace), ['acme/widgets'], `round ${round}`);
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  }
});

test('ephemeral with QUARRY_SSH_PORT=auto: an SSH server on a free port, on the ready line and in ssh_url_to_repo', async () => {
  const server = await startServer([], { QUARRY_EPHEMERAL: '1', QUARRY_SSH_PORT: 'auto' });
  try {
    const { url, token, ssh_port: port } = server.ready;
    assert.ok(typeof port === 'number' && port > 0, String(port));
    const project = await request(url, 'POST', '/api/v4/projects', token, { name: 'scratch' });
    assert.equal(project.body.ssh_url_to_repo, `ssh://git@127.0.0.1:${port}/root/scratch.git`);
    const banner = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port as number, '127.0.0.1');
      socket.once('data', (chunk) => {
        socket.destroy();
        resolve(chunk.toString('latin1'));
      });
      socket.once('error', reject);
    });
    assert.equal(banner, 'SSH-2.0-Quarry\r\n');
  } finally {
    assert.equal(await server.stop('SIGTERM'), 0);
  }
});
