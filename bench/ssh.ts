// Git over SSH against git over HTTP, on one `quarry serve` (SQLite) in one run: the fixture of
// bench/repository.ts (5,000 commits, 1,000 branches, 1,000 tags) pushed to fresh projects and
// cloned back over each transport, rounds alternating, medians kept; then 50 clones at once over
// SSH, and the same 50 over HTTP as the yardstick. The client is the system git with OpenSSH.
// Writes its section of bench/RESULTS.md.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { TOKEN, benchServer, machineLine, percentile, round, writeSection } from './ci-server.ts';
import { FIXTURE, buildFixture, medianMs } from './repository.ts';

const ROUNDS = 3;
const CONCURRENT = 50;
const REFSPECS = ['refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*'];

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const started = new Date();
const sshPort = await freePort();
// Without the HTTP load shedding of a late event loop: under 50 clones at once it would refuse
// part of the HTTP yardstick (503), which SSH, served beside the HTTP stack, never meets.
const bench = benchServer({ QUARRY_SSH_PORT: String(sshPort), QUARRY_OVERLOAD_LAG: '0' });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ssh-bench-'));

await writeSection('ssh', bench, async () => {
  try {
    await bench.start();
    const keyFile = path.join(scratch, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const added = await bench.api('POST', '/api/v4/user/keys', { title: 'bench', key: fs.readFileSync(`${keyFile}.pub`, 'utf8') });
    if (added.status !== 201) throw new Error(`POST /user/keys: ${added.status}`);
    const sshCommand = `ssh -F /dev/null -i ${keyFile} -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p ${sshPort}`;
    const git = (args: string[], cwd = scratch) =>
      new Promise<number>((resolve, reject) => {
        const begun = performance.now();
        const child = spawn('git', args, {
          cwd,
          env: { PATH: process.env.PATH, HOME: scratch, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: sshCommand },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk) => (stderr += chunk));
        child.on('close', (code) => (code === 0 ? resolve(performance.now() - begun) : reject(new Error(`git ${args[0]} failed (${code}): ${stderr.trim()}`))));
      });
    const fixture = await buildFixture(scratch);
    const newProject = async (name: string) => {
      const res = await bench.api('POST', '/api/v4/projects', { name, path: name });
      if (res.status !== 201) throw new Error(`POST /projects: ${res.status}`);
      return { ssh: res.json.ssh_url_to_repo as string, http: (res.json.http_url_to_repo as string).replace('://', `://root:${TOKEN}@`) };
    };

    const times = { sshPush: [] as number[], httpPush: [] as number[], sshClone: [] as number[], httpClone: [] as number[] };
    let last = { ssh: '', http: '' };
    for (let r = 0; r < ROUNDS; r++) {
      const overHttp = await newProject(`http-${r}`);
      times.httpPush.push(await git(['push', '--quiet', overHttp.http, ...REFSPECS], fixture));
      last = await newProject(`ssh-${r}`);
      times.sshPush.push(await git(['push', '--quiet', last.ssh, ...REFSPECS], fixture));
    }
    const into = (name: string) => path.join(scratch, name);
    for (let r = 0; r < ROUNDS; r++) {
      times.httpClone.push(await git(['clone', '--quiet', '--bare', last.http, into(`http-clone-${r}`)]));
      times.sshClone.push(await git(['clone', '--quiet', '--bare', last.ssh, into(`ssh-clone-${r}`)]));
      for (const dir of [`http-clone-${r}`, `ssh-clone-${r}`]) fs.rmSync(into(dir), { recursive: true, force: true });
    }

    /** CONCURRENT clones at once: wall time, each clone's time, failures. */
    const burst = async (url: string, label: string) => {
      const begun = performance.now();
      const results = await Promise.allSettled(Array.from({ length: CONCURRENT }, (_, i) => git(['clone', '--quiet', '--bare', url, into(`${label}-${i}`)])));
      const wallMs = performance.now() - begun;
      for (let i = 0; i < CONCURRENT; i++) fs.rmSync(into(`${label}-${i}`), { recursive: true, force: true });
      const each = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const failed = results.filter((r) => r.status === 'rejected');
      if (failed.length > 0) console.error(`${label}: ${(failed[0] as PromiseRejectedResult).reason}`);
      return { wallMs, p50: percentile(each, 50), p99: percentile(each, 99), failures: failed.length };
    };
    const httpBurst = await burst(last.http, 'http-burst');
    const sshBurst = await burst(last.ssh, 'ssh-burst');

    const s = (ms: number) => `${round(ms / 1000, 2)} s`;
    const ratio = (a: number[], b: number[]) => round(medianMs(a) / medianMs(b), 2);
    return [
      '<!-- bench:ssh -->',
      '## Latest run: git over SSH (SQLite, one server process)',
      '',
      machineLine(started),
      '',
      `The fixture of the git section above (${FIXTURE.commits.toLocaleString('en')} commits, ${FIXTURE.branches.toLocaleString('en')} branches, ${FIXTURE.tags.toLocaleString('en')} tags), pushed to a fresh project and cloned back (\`--bare\`) by the system git, over SSH (OpenSSH client, ed25519 key) and over HTTP (a personal access token) to the same server, ${ROUNDS} rounds alternating, medians; target: SSH within 1.2× of HTTP.`,
      '',
      '| operation | over SSH | over HTTP | SSH ÷ HTTP |',
      '|---|---|---|---|',
      `| push (every branch and tag) | ${s(medianMs(times.sshPush))} | ${s(medianMs(times.httpPush))} | ${ratio(times.sshPush, times.httpPush)}× |`,
      `| clone | ${s(medianMs(times.sshClone))} | ${s(medianMs(times.httpClone))} | ${ratio(times.sshClone, times.httpClone)}× |`,
      '',
      `${CONCURRENT} clones at once of the same repository (\`QUARRY_OVERLOAD_LAG=0\`: the HTTP load shedding, which would turn part of the HTTP clones away with 503, is off):`,
      '',
      '| transport | all done after | one clone, p50 | p99 | failed |',
      '|---|---|---|---|---|',
      `| SSH | ${s(sshBurst.wallMs)} | ${s(sshBurst.p50)} | ${s(sshBurst.p99)} | ${sshBurst.failures} |`,
      `| HTTP (yardstick) | ${s(httpBurst.wallMs)} | ${s(httpBurst.p50)} | ${s(httpBurst.p99)} | ${httpBurst.failures} |`,
      '',
      `SSH ÷ HTTP, all ${CONCURRENT} done: ${round(sshBurst.wallMs / httpBurst.wallMs, 2)}×.`,
      '<!-- /bench:ssh -->',
    ];
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
});
