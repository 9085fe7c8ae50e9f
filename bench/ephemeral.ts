// Ephemeral mode's figures: spawn to the first answered request (a 200 from /-/readiness), and
// POST /-/test/reset after a small seed. `node bench/ephemeral.ts [starts] [resets]`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const MAIN = path.resolve(import.meta.dirname, '../src/main.js');
const starts = Number(process.argv[2] ?? 7);
const resets = Number(process.argv[3] ?? 30);
const SEED = path.resolve(import.meta.dirname, 'ephemeral-seed.yaml');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function start(args: string[] = []) {
  const began = performance.now();
  const child = spawn(process.execPath, [MAIN, 'serve', '--ephemeral', ...args], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
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

// The client's own first fetch loads its HTTP stack: not part of the server's start.
await fetch('http://127.0.0.1:1/').catch(() => {});
const startTimes: number[] = [];
const cpuTimes: number[] = [];
for (let i = 0; i < starts; i++) {
  const server = await start();
  startTimes.push(server.ms);
  cpuTimes.push(server.cpuMs);
  await server.stop();
}
console.log(`start (spawn → first 200 from /-/readiness), ${starts} runs: median ${median(startTimes).toFixed(0)} ms, min ${Math.min(...startTimes).toFixed(0)}, max ${Math.max(...startTimes).toFixed(0)}; server CPU time until then: median ${median(cpuTimes)} ms`);

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
