// A burst against a server process of its own: 200 connections start at once against a route that
// keeps the CPU busy for 8 ms a request (as a heavy list does on SQLite), while the health probe is
// asked on a new connection every 100 ms from this process. Every probe must be answered within a
// second, those of the burst's first second included. The loop accepts one connection per turn
// and reads it in the next, so the probes wait on the length of the turns, and on every connection
// queued in the kernel before them (src/core/load-shedding.ts).
//
// The load comes from autocannon in a process of its own and the server runs in another, so that
// this process only times the probes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SECONDS = 5;
const CONNECTIONS = 200;

const SERVER = `
import Fastify from 'fastify';
import { installLoadShedding } from ${JSON.stringify(path.join(ROOT, 'src/core/load-shedding.ts'))};
const app = Fastify();
installLoadShedding(app, { maxInFlight: 128, lateMs: 200 });
app.get('/work', async () => {
  const end = performance.now() + 8;
  while (performance.now() < end);
  return { done: true };
});
app.get('/-/liveness', async () => ({ status: 'ok' }));
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(app.server.address().port + '\\n');
`;

const children: ChildProcess[] = [];
after(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

/** One GET on a connection of its own: status (0: no answer) and milliseconds. */
function probe(port: number): Promise<{ status: number; ms: number; at: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/-/liveness', agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, at: started }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started, at: started }));
  });
}

test('under a burst of 200 connections the probes on new connections answer within a second, from its first second', { timeout: 60_000 }, async () => {
  const server = spawn(process.execPath, ['--input-type=module', '-e', SERVER], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(server);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    server.once('exit', () => reject(new Error('the server did not start')));
  });

  const cannon = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/autocannon/autocannon.js'), '-c', String(CONNECTIONS), '-d', String(SECONDS), '-t', '10', '-j', `http://127.0.0.1:${port}/work`],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  children.push(cannon);
  let output = '';
  cannon.stdout?.on('data', (chunk) => (output += chunk));
  const done = new Promise<void>((resolve) => cannon.once('exit', () => resolve()));

  const loadStart = performance.now();
  const probes: Promise<{ status: number; ms: number; at: number }>[] = [];
  const prober = setInterval(() => probes.push(probe(port)), 100);
  await done;
  clearInterval(prober);
  const answers = await Promise.all(probes);

  const result = JSON.parse(output);
  // The load was a burst the server could not serve at once: some answered, the rest refused.
  assert.ok(result['2xx'] > 0 && result.non2xx > 0, `answered ${result['2xx']}, refused ${result.non2xx}`);
  assert.ok(answers.length >= SECONDS * 5, `${answers.length} probes`);
  const late = answers.filter((a) => a.status !== 200 || a.ms > 1000).map((a) => `sent at ${Math.round(a.at - loadStart)} ms: ${a.status} after ${Math.round(a.ms)} ms`);
  assert.deepEqual(late, []);
});
