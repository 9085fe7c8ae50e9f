// Ephemeral mode's figures: spawn to the first answered request (a 200 from /-/readiness), from the
// bundled server (src/bundle) and from the sources, beside a yardstick measured in the same run
// (the same for a bare node:http server); and POST /-/test/reset after a small seed.
// `node bench/ephemeral.ts [starts] [resets]`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const MAIN = path.resolve(import.meta.dirname, '../src/main.js');
const starts = Number(process.argv[2] ?? 7);
const resets = Number(process.argv[3] ?? 30);
const SEED = path.resolve(import.meta.dirname, 'ephemeral-seed.yaml');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The yardstick: a Node process that serves a 200 and prints the same ready line. */
const BARE_SERVER = `const s = require('node:http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'ready', url: 'http://127.0.0.1:' + s.address().port, token: '' }))); process.on('SIGTERM', () => process.exit(0));`;

async function start(args: string[] = [], env: Record<string, string> = {}, command = [MAIN, 'serve', '--ephemeral']) {
  const began = performance.now();
  const child = spawn(process.execPath, [...command, ...args], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let ready: { url: string; token: string } | null = null;
  for await (const line of createInterface({ input: child.stdout })) {
    const event = JSON.parse(line);
    if (event.msg === 'ready') {
      ready = event;
      break;
    }
  }
  child.stdout.resume();
  if (!ready) throw new Error('no ready line');
  const res = await fetch(`${ready.url}/-/readiness`);
  if (res.status !== 200) throw new Error(`readiness ${res.status}`);
  const ms = performance.now() - began;
  // CPU time the server used until then (user + system, in clock ticks of 10 ms): a figure that a busy machine inflates less than the wall time.
  const fields = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
  const stopped = new Promise((resolve) => child.on('exit', resolve));
  return { ...ready, ms, cpuMs, stop: async () => (child.kill('SIGTERM'), await stopped) };
}

/** Median spawn-to-200 and server CPU time of `starts` starts. */
async function starting(label: string, env: Record<string, string> = {}, command?: string[]) {
  const startTimes: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < starts; i++) {
    const server = await start([], env, command);
    startTimes.push(server.ms);
    cpuTimes.push(server.cpuMs);
    await server.stop();
  }
  const ms = median(startTimes);
  console.log(`${label}, ${starts} runs: median ${ms.toFixed(0)} ms, min ${Math.min(...startTimes).toFixed(0)}, max ${Math.max(...startTimes).toFixed(0)}; server CPU time until then: median ${median(cpuTimes)} ms`);
  return ms;
}

// The client's own first fetch loads its HTTP stack: not part of the server's start.
await fetch('http://127.0.0.1:1/').catch(() => {});
// A current bundle, and its code cache, which the first start from it writes.
const build = spawnSync(process.execPath, [path.resolve(import.meta.dirname, '../src/bundle/build.ts')], { stdio: 'inherit' });
if (build.status !== 0) throw new Error('the bundle was not built');
await (await start()).stop();
const yardstick = await starting('yardstick: a bare node:http server, spawn → first 200', {}, ['-e', BARE_SERVER]);
const bundled = await starting('start from the bundle (spawn → first 200 from /-/readiness)');
const sources = await starting('start from the sources (QUARRY_BUNDLE=0)', { QUARRY_BUNDLE: '0' });
console.log(`ratios to the yardstick: bundle ${(bundled / yardstick).toFixed(1)}, sources ${(sources / yardstick).toFixed(1)}`);

const server = await start(['--seed', SEED]);
console.log(`start with the seed (${path.basename(SEED)}): ${server.ms.toFixed(0)} ms`);
const client: number[] = [];
const inside: number[] = [];
for (let i = 0; i < resets; i++) {
  // Each round changes something first, as a test would.
  await fetch(`${server.url}/api/v4/projects`, { method: 'POST', headers: { 'PRIVATE-TOKEN': server.token, 'content-type': 'application/json' }, body: JSON.stringify({ name: `p${i}`, initialize_with_readme: true }) });
  const began = performance.now();
  const res = await fetch(`${server.url}/-/test/reset`, { method: 'POST', headers: { 'PRIVATE-TOKEN': server.token } });
  const body = (await res.json()) as { duration_ms: number };
  client.push(performance.now() - began);
  inside.push(body.duration_ms);
}
console.log(`reset after a change, ${resets} runs: median ${median(client).toFixed(1)} ms over HTTP (server-side ${median(inside).toFixed(1)} ms), max ${Math.max(...client).toFixed(1)} ms`);
await server.stop();
