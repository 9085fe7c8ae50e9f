// `quarry runner` against a server whose clock the test holds: cancellation, the job time limit,
// a runner killed mid-job, retries, runners with different tags, a graceful stop and the sandbox.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { systemContext } from '../../src/core/context.ts';
import { backgroundJobKinds } from '../../src/jobs/kinds.ts';
import { type Worker, startWorker } from '../../src/jobs/worker.ts';
import { dropStuckJobs } from '../../src/modules/ci-jobs/ci-jobs.service.ts';
import { instanceRegistrationToken } from '../../src/modules/runners/runners.service.ts';
import { ROOT_TOKEN, type TestApp, type TestUser } from '../harness.ts';
import { listeningTestApp } from '../listening.ts';
import { expectStatus } from '../matchers.ts';
import { MAIN } from '../server-process.ts';
import { commitConfig, projectWithRepository } from '../ci/ci-test-helpers.ts';

let t: TestApp;
let host: string;
let owner: TestUser;
let worker: Worker;
let registrationToken: string;
let clockOffsetMs = 0;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-runner-scenarios-'));
const runners: ChildProcess[] = [];

before(async () => {
  ({ t, host } = await listeningTestApp({ QUARRY_RUNNER_LONG_POLL_SECONDS: '5' }));
  // The stuck-job check reads the application's clock, which this test moves forward.
  (t.deps as { now: () => Date }).now = () => new Date(Date.now() + clockOffsetMs);
  worker = await startWorker(t.deps, { kinds: backgroundJobKinds, log: { info() {}, warn() {}, error() {} } as never, pollMs: 100 });
  owner = await t.user();
  registrationToken = await instanceRegistrationToken(systemContext(t.deps));
});

after(async () => {
  for (const r of runners) if (r.exitCode === null && r.signalCode === null) r.kill('SIGKILL');
  await worker?.stop();
  await t?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

interface Runner {
  child: ChildProcess;
  log(): string;
  exited: Promise<number | string | null>;
}

function startRunner(name: string, args: string[] = []): Runner {
  const child = spawn(process.execPath, [MAIN, 'runner', '--url', host, '--work-dir', path.join(scratch, name), '--description', name, '--concurrent', '1', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: scratch, QUARRY_RUNNER_REGISTRATION_TOKEN: registrationToken },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  runners.push(child);
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  return { child, log: () => output, exited };
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function projectRunning(config: string): Promise<number> {
  const project = await projectWithRepository(t, owner);
  await commitConfig(t, owner, project.id, config);
  return project.id;
}

const job = (id: number) => t.deps.db.selectFrom('ci_builds').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function onlyJob(projectId: number, name?: string) {
  return until(`a job of project ${projectId}`, async () => {
    const rows = await t.deps.db.selectFrom('ci_builds').selectAll().where('project_id', '=', projectId).where('type', '=', 'build').where('retried', '=', false).orderBy('id').execute();
    return rows.find((r) => name === undefined || r.name === name);
  });
}

const jobStatus = (id: number, ...statuses: string[]) =>
  until(`job ${id} to be ${statuses.join(' or ')}`, async () => {
    const row = await job(id);
    return statuses.includes(row.status) ? row : undefined;
  });

const traceOf = async (projectId: number, id: number) => (await t.get(`/api/v4/projects/${projectId}/jobs/${id}/trace`, { token: owner.token })).body;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('a canceled job: its processes end within seconds and after_script does not run', async () => {
  const marks = path.join(scratch, 'cancel');
  fs.mkdirSync(marks);
  const projectId = await projectRunning(`
long:
  tags: [cancel]
  script:
    - sleep 120 & echo $! > ${marks}/sleep.pid
    - echo started
    - wait
  after_script:
    - touch ${marks}/after-script-ran
`);
  startRunner('cancel-runner', ['--tag-list', 'cancel']);
  const { id } = await onlyJob(projectId);
  await until('the job to start its sleep', async () => (fs.existsSync(path.join(marks, 'sleep.pid')) && (await traceOf(projectId, id)).includes('started') ? true : undefined));
  const pid = Number(fs.readFileSync(path.join(marks, 'sleep.pid'), 'utf8'));
  assert.ok(alive(pid));
  const canceledAt = Date.now();
  expectStatus(await t.post(`/api/v4/projects/${projectId}/jobs/${id}/cancel`, { token: owner.token }), 201);
  await until('the job process to end', async () => (alive(pid) ? undefined : true), 10_000);
  // The runner learns of it at its next log call (3 seconds apart), then ends the group at once;
  // the margin is for a loaded machine, the point is seconds rather than the two minutes of the sleep.
  assert.ok(Date.now() - canceledAt < 8000, `ended after ${Date.now() - canceledAt} ms`);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(fs.existsSync(path.join(marks, 'after-script-ran')), false);
  assert.equal((await job(id)).status, 'canceled');
});

test('the job time limit: the job fails with job_execution_timeout, after_script still runs', async () => {
  const marks = path.join(scratch, 'timeout');
  fs.mkdirSync(marks);
  const projectId = await projectRunning(`
slow:
  tags: [timeout]
  timeout: 2 seconds
  script:
    - echo sleeping
    - sleep 60
  after_script:
    - touch ${marks}/after-script-ran
`);
  startRunner('timeout-runner', ['--tag-list', 'timeout']);
  const { id } = await onlyJob(projectId);
  const row = await jobStatus(id, 'failed', 'success');
  assert.equal(row.status, 'failed');
  assert.equal(row.failure_reason, 'job_execution_timeout');
  assert.match(await traceOf(projectId, id), /ERROR: Job failed: execution took longer than 2 seconds/);
  assert.ok(fs.existsSync(path.join(marks, 'after-script-ran')));
});

test('a runner killed mid-job: a restarted one does not take the job again; the stuck-job check fails it', async () => {
  const marks = path.join(scratch, 'killed');
  fs.mkdirSync(marks);
  const projectId = await projectRunning(`
orphan:
  tags: [killed]
  script:
    - echo $$ > ${marks}/shell.pid
    - sleep 120
`);
  const first = startRunner('killed-runner', ['--tag-list', 'killed']);
  const { id } = await onlyJob(projectId);
  await until('the job to run', async () => (fs.existsSync(path.join(marks, 'shell.pid')) ? true : undefined));
  first.child.kill('SIGKILL');
  await first.exited;
  // Its shell lives on in its own process group; this test ends it.
  const shell = Number(fs.readFileSync(path.join(marks, 'shell.pid'), 'utf8'));
  try {
    process.kill(-shell, 'SIGKILL');
  } catch {
    // gone already
  }
  const again = startRunner('killed-runner', ['--tag-list', 'killed']);
  await until('the restarted runner to ask for jobs', async () => (again.log().includes('runner started') ? true : undefined));
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal((await job(id)).status, 'running');
  assert.equal(again.log().includes(`"job":${id}`), false);
  // An hour and more without news.
  clockOffsetMs = 2 * 3600 * 1000;
  try {
    assert.equal(await dropStuckJobs(systemContext(t.deps)), 1);
  } finally {
    clockOffsetMs = 0;
  }
  const row = await job(id);
  assert.equal(row.status, 'failed');
  assert.equal(row.failure_reason, 'stuck_or_timeout_failure');
  again.child.kill('SIGTERM');
  assert.equal(await again.exited, 0);
});

test('retry: a failed job retried through the API runs again and the pipeline succeeds', async () => {
  const marks = path.join(scratch, 'retry');
  fs.mkdirSync(marks);
  const projectId = await projectRunning(`
once:
  tags: [retry]
  script:
    - if [ -f ${marks}/tried ]; then echo second attempt; else touch ${marks}/tried; exit 1; fi
`);
  startRunner('retry-runner', ['--tag-list', 'retry']);
  const first = await onlyJob(projectId);
  assert.equal((await jobStatus(first.id, 'failed', 'success')).status, 'failed');
  const retried = await t.post(`/api/v4/projects/${projectId}/jobs/${first.id}/retry`, { token: owner.token });
  expectStatus(retried, 201);
  const second = await jobStatus(retried.json().id, 'failed', 'success');
  assert.equal(second.status, 'success');
  assert.match(await traceOf(projectId, second.id), /\nsecond attempt\n/);
  assert.equal((await job(first.id)).retried, true);
  const pipeline = await until('the pipeline to succeed', async () => {
    const p = await t.deps.db.selectFrom('ci_pipelines').select('status').where('id', '=', second.pipeline_id).executeTakeFirstOrThrow();
    return p.status === 'success' ? p : undefined;
  });
  assert.equal(pipeline.status, 'success');
});

test('two runners with different tags each take only the jobs they match', async () => {
  const projectId = await projectRunning(`
on-linux:
  tags: [linux]
  script: [echo linux]
on-mac:
  tags: [mac]
  script: [echo mac]
`);
  startRunner('linux-runner', ['--tag-list', 'linux']);
  startRunner('mac-runner', ['--tag-list', 'mac']);
  const linux = await jobStatus((await onlyJob(projectId, 'on-linux')).id, 'success', 'failed');
  const mac = await jobStatus((await onlyJob(projectId, 'on-mac')).id, 'success', 'failed');
  const described = async (id: number) => (await t.get(`/api/v4/projects/${projectId}/jobs/${id}`, { token: owner.token })).json().runner?.description;
  assert.equal(await described(linux.id), 'linux-runner');
  assert.equal(await described(mac.id), 'mac-runner');
});

test('SIGTERM: a running job is given the time to finish and is reported; the runner exits 0', async () => {
  const marks = path.join(scratch, 'graceful');
  fs.mkdirSync(marks);
  const projectId = await projectRunning(`
short:
  tags: [graceful]
  script:
    - touch ${marks}/started
    - sleep 2
    - echo finished
`);
  const runner = startRunner('graceful-runner', ['--tag-list', 'graceful', '--shutdown-timeout', '30']);
  const { id } = await onlyJob(projectId);
  await until('the job to start', async () => (fs.existsSync(path.join(marks, 'started')) ? true : undefined));
  runner.child.kill('SIGTERM');
  assert.equal(await runner.exited, 0);
  assert.equal((await job(id)).status, 'success');
  assert.match(await traceOf(projectId, id), /\nfinished\n/);
});

test('SIGTERM past the shutdown timeout: the job is ended and reported failed, never left running', async () => {
  const marks = path.join(scratch, 'hurried');
  fs.mkdirSync(marks);
  const projectId = await projectRunning(`
long:
  tags: [hurried]
  script:
    - touch ${marks}/started
    - sleep 120
`);
  const runner = startRunner('hurried-runner', ['--tag-list', 'hurried', '--shutdown-timeout', '1']);
  const { id } = await onlyJob(projectId);
  await until('the job to start', async () => (fs.existsSync(path.join(marks, 'started')) ? true : undefined));
  runner.child.kill('SIGTERM');
  assert.equal(await runner.exited, 0);
  const row = await job(id);
  assert.equal(row.status, 'failed');
  assert.equal(row.failure_reason, 'runner_system_failure');
});

test('QUARRY_RUNNER_SANDBOX=bwrap: a job writes its own directory and nothing else', { skip: !fs.existsSync('/usr/bin/bwrap') && 'bubblewrap is not installed' }, async () => {
  const outside = path.join(os.tmpdir(), `quarry-sandbox-probe-${process.pid}`);
  const projectId = await projectRunning(`
boxed:
  tags: [boxed]
  script:
    - echo inside > in-project.txt && cat in-project.txt
    - touch ${outside} || echo "outside refused"
    - touch /var/tmp/quarry-sandbox-probe-${process.pid} || echo "var refused"
`);
  startRunner('boxed-runner', ['--tag-list', 'boxed', '--sandbox', 'bwrap']);
  const { id } = await onlyJob(projectId);
  assert.equal((await jobStatus(id, 'success', 'failed')).status, 'success');
  const log = await traceOf(projectId, id);
  assert.match(log, /\ninside\n/);
  // /tmp is the sandbox's own: what is written there is gone with it.
  assert.match(log, /\nvar refused\n/);
  assert.equal(fs.existsSync(`/var/tmp/quarry-sandbox-probe-${process.pid}`), false);
  assert.equal(fs.existsSync(outside), false);
});

test('a runner the server no longer knows registers again and goes on taking jobs', async () => {
  const runner = startRunner('renewed-runner', ['--tag-list', 'renewed']);
  await until('the runner to start', async () => (runner.log().includes('runner started') ? true : undefined));
  const row = await t.deps.db.selectFrom('ci_runners').select('id').where('description', '=', 'renewed-runner').executeTakeFirstOrThrow();
  expectStatus(await t.del(`/api/v4/runners/${row.id}`, { token: ROOT_TOKEN }), 204);
  const projectId = await projectRunning('again:\n  tags: [renewed]\n  script: [echo again]\n');
  const { id } = await onlyJob(projectId);
  assert.equal((await jobStatus(id, 'success', 'failed')).status, 'success');
  assert.match(runner.log(), /registered again/);
});
