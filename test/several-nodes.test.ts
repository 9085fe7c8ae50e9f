// Several nodes of one deployment: two `quarry serve` processes on one PostgreSQL database and one
// data directory (repositories, keys, instance id), behind a round-robin proxy, as a load balancer
// would put them. What one node wrote the other serves; a periodic task and a background job run
// once between them; with Redis the rate limit counts both nodes' requests together.
// PostgreSQL only (SQLite is one machine's file): the suite's PostgreSQL run covers it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { periodicTasks } from '../src/jobs/tasks.ts';
import { gitCli, gitUrl } from './git-cli.ts';
import { freePort } from './listening.ts';
import { type ServerProcess, type TestDatabase, freshDatabase, startServer } from './server-process.ts';
import { redisAnswers, redisUrl } from './redis.ts';

const TOKEN = 'glpat-several-nodes-root-0001';
const LIMIT = 100;
const PERIOD = 3600;

const skip = process.env.DATABASE_URL ? false : 'several nodes share a PostgreSQL database: this runs in the suite on PostgreSQL (DATABASE_URL)';

describe('two nodes behind a round-robin proxy', { skip, timeout: 180_000 }, () => {
  let dataDir: string;
  let database: TestDatabase;
  let proxy: http.Server;
  let proxyUrl: string;
  let withRedis = false;
  const nodes: ServerProcess[] = [];
  const git = gitCli();

  /** A request through the proxy; `node` says which node answered. */
  async function api(method: string, target: string, options: { token?: string; body?: unknown; base?: string } = {}) {
    const res = await fetch(`${options.base ?? proxyUrl}/api/v4${target}`, {
      method,
      headers: { 'private-token': options.token ?? TOKEN, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text, node: res.headers.get('x-test-node') };
  }
  const nodeUrl = (i: number) => `http://127.0.0.1:${nodes[i].port}`;

  /** The lines of both nodes' logs with this message. */
  function logged(msg: string): Record<string, unknown>[] {
    return nodes.flatMap((node, i) =>
      node
        .log()
        .split('\n')
        .filter((line) => line.includes(`"msg":"${msg}"`))
        .map((line) => ({ ...JSON.parse(line), node: i })),
    );
  }

  before(async () => {
    withRedis = await redisAnswers(redisUrl);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-nodes-'));
    database = await freshDatabase('quarry_nodes', dataDir);
    const proxyPort = await freePort();
    proxyUrl = `http://127.0.0.1:${proxyPort}`;
    const ports = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: os.tmpdir(),
      DATABASE_URL: database.url as string,
      QUARRY_DATA_DIR: dataDir,
      QUARRY_ROOT_TOKEN: TOKEN,
      QUARRY_EXTERNAL_URL: proxyUrl,
      QUARRY_PASSWORD_HASH_COST: '1024',
      QUARRY_LOG_LEVEL: 'info',
      QUARRY_RATE_LIMIT_REQUESTS: String(LIMIT),
      QUARRY_RATE_LIMIT_PERIOD: String(PERIOD),
      ...(withRedis ? { REDIS_URL: redisUrl } : {}),
    };
    // Started together on a new database: both migrate, check the instance and ensure root at once.
    nodes.push(...(await Promise.all(ports.map((port) => startServer(env, port)))));

    let next = 0;
    proxy = http.createServer((req, res) => {
      const i = next++ % nodes.length;
      const upstream = http.request(
        { host: '127.0.0.1', port: nodes[i].port, method: req.method, path: req.url, headers: req.headers, agent: false },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-test-node': String(i) });
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
  });

  after(async () => {
    proxy?.close();
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await database?.drop();
    git.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a user created through one node is used through the other', async () => {
    const created = await api('POST', '/users', { body: { username: 'alice', email: 'alice@example.com', name: 'Alice', password: 'alice-password-1', skip_confirmation: true } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const token = await api('POST', `/users/${created.body.id}/personal_access_tokens`, { body: { name: 'both', scopes: ['api'] } });
    assert.equal(token.status, 201);
    assert.notEqual(token.node, created.node, 'the proxy alternates');
    const seen = new Set<string | null>();
    for (let i = 0; i < 2; i++) {
      const me = await api('GET', '/user', { token: token.body.token });
      assert.equal(me.status, 200);
      assert.equal(me.body.username, 'alice');
      seen.add(me.node);
    }
    assert.equal(seen.size, 2, 'both nodes know the user and the token');
  });

  test('a push through one node clones through the other', async () => {
    const project = await api('POST', '/projects', { body: { name: 'shared', initialize_with_readme: true } });
    assert.equal(project.status, 201);
    const work = path.join(git.root, 'work');
    await git.ok(['clone', '-q', gitUrl(nodeUrl(0), 'root/shared', { login: 'root', password: TOKEN }), work]);
    const sha = await git.commit(work, 'both.txt', 'pushed to node 0\n', 'Through node 0');
    await git.ok(['push', '-q', 'origin', 'HEAD:main'], work);
    for (const i of [1, 0]) {
      const clone = path.join(git.root, `clone-${i}`);
      await git.ok(['clone', '-q', gitUrl(nodeUrl(i), 'root/shared', { login: 'root', password: TOKEN }), clone]);
      assert.equal((await git.ok(['rev-parse', 'HEAD'], clone)).trim(), sha, `node ${i} serves the push`);
    }
    // Through the proxy, one push's requests (refs, then the pack) reach both nodes in turn.
    const sha2 = await git.commit(work, 'proxy.txt', 'pushed through the proxy\n', 'Through the proxy');
    await git.ok(['push', '-q', gitUrl(proxyUrl, 'root/shared', { login: 'root', password: TOKEN }), 'HEAD:main'], work);
    for (const base of [nodeUrl(0), nodeUrl(1)]) {
      const branch = await api('GET', `/projects/${project.body.id}/repository/branches/main`, { base });
      assert.equal(branch.body.commit.id, sha2);
    }
    const events = await api('GET', `/projects/${project.body.id}/events?action=pushed`);
    for (const to of [sha, sha2]) {
      assert.equal(events.body.filter((e: { push_data: { commit_to: string } }) => e.push_data.commit_to === to).length, 1, `the push of ${to} recorded once`);
    }
  });

  test('a background job runs once, on one node', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const project = await api('POST', '/projects', { body: { name: `doomed-${i}`, initialize_with_readme: true } });
      assert.equal(project.status, 201);
      ids.push(project.body.id);
    }
    // Each deletion queues the removal of the repository; both nodes are woken for it.
    for (const id of ids) assert.equal((await api('DELETE', `/projects/${id}`)).status, 202);
    const deadline = Date.now() + 20_000;
    while ((await database.query('select id from background_jobs')).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await database.query('select id, kind, state, last_error from background_jobs'), []);
    // A job's row goes before its node's log line reaches the pipe.
    const removalsLogged = () => logged('background job done').filter((line) => line.kind === 'project.repository.remove').length;
    while (removalsLogged() < ids.length && Date.now() < deadline + 5000) await new Promise((r) => setTimeout(r, 100));
    const done = logged('background job done');
    const removals = done.filter((line) => line.kind === 'project.repository.remove');
    assert.ok(removals.length >= ids.length, `the removals ran: ${JSON.stringify(done)}`);
    const runs = new Map<unknown, number>();
    for (const line of done) runs.set(line.job, (runs.get(line.job) ?? 0) + 1);
    assert.deepEqual([...runs].filter(([, count]) => count !== 1), [], 'no job ran twice');
    for (const id of ids) assert.equal((await api('GET', `/projects/${id}`)).status, 404);
  });

  test('each periodic task runs once between the two nodes', async () => {
    // Both nodes look for due tasks as they start; a task seen for the first time is due at once.
    const deadline = Date.now() + 15_000;
    while (logged('periodic task ran').length < periodicTasks.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    const ran = logged('periodic task ran');
    for (const task of periodicTasks) {
      assert.equal(ran.filter((line) => line.task === task.name).length, 1, `${task.name} ran once: ${JSON.stringify(ran)}`);
    }
    const claims = await database.query<{ name: string; next_run_at: string }>('select name, next_run_at from scheduled_task_runs');
    assert.equal(claims.length, periodicTasks.length);
    for (const claim of claims) assert.ok(new Date(claim.next_run_at).getTime() > Date.now(), `${claim.name} is next due later`);
  });

  test('the rate limit counts the requests of both nodes together (Redis)', async (t) => {
    if (!withRedis) {
      t.skip(`no Redis answers at ${redisUrl}: the shared rate limit is not checked`);
      return;
    }
    // Not at the end of a window, which would start the count again halfway.
    const left = PERIOD * 1000 - (Date.now() % (PERIOD * 1000));
    if (left < 30_000) await new Promise((r) => setTimeout(r, left + 500));
    const user = await api('POST', '/users', { body: { username: 'counted', email: 'counted@example.com', name: 'Counted', password: 'counted-password-1', skip_confirmation: true } });
    const token = (await api('POST', `/users/${user.body.id}/personal_access_tokens`, { body: { name: 'limited', scopes: ['api'] } })).body.token;
    const served = [0, 0];
    for (let i = 0; i < LIMIT; i++) {
      const res = await api('GET', '/version', { token });
      assert.equal(res.status, 200, `request ${i + 1} of the quota`);
      served[Number(res.node)]++;
    }
    assert.deepEqual(served, [LIMIT / 2, LIMIT / 2], 'each node served half of the quota');
    for (const base of [nodeUrl(0), nodeUrl(1)]) {
      const res = await api('GET', '/version', { token, base });
      assert.equal(res.status, 429, `node ${base} refuses once both together served the quota`);
      assert.equal(res.body, 'Retry later\n');
    }
  });
});
