// Durability of acknowledged writes: the real server process, under a mixed write load (users,
// groups, projects, commits through the API, git pushes, project deletions whose repositories are
// removed by background jobs), is killed with SIGKILL at a random moment several times and
// restarted. Afterwards every write that was answered 2xx must be there (through the API), every
// repository must pass `git fsck`, and every queued background job must run. Runs on the suite's
// database: PostgreSQL when DATABASE_URL is set, SQLite otherwise.
//
// QUARRY_TEST_SEED replays a run's choices (which writes, when the kills come); QUARRY_TEST_KILLS
// and QUARRY_TEST_LAST_LOAD_MS (the load after the last restart) change its length.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { repositoryPath } from '../src/git/repository.ts';
import { gitCli, gitUrl } from './git-cli.ts';
import { freePort } from './listening.ts';
import { seededRandom } from './random.ts';
import { type ServerProcess, type TestDatabase, freshDatabase, startServer } from './server-process.ts';

const KILLS = Number(process.env.QUARRY_TEST_KILLS ?? 5);
const WRITERS = 3;
const TOKEN = 'glpat-durability-root-token-01';
const seed = Number(process.env.QUARRY_TEST_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(seed);
const pick = <T>(items: readonly T[]): T | undefined => (items.length ? items[Math.floor(random() * items.length)] : undefined);

let dataDir: string;
let database: TestDatabase;
let env: Record<string, string>;
let port: number;
let host: string;
let server: ServerProcess | null = null;
const git = gitCli();

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-durability-'));
  database = await freshDatabase('quarry_durability', dataDir);
  port = await freePort();
  host = `http://127.0.0.1:${port}`;
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: os.tmpdir(),
    QUARRY_DATA_DIR: dataDir,
    QUARRY_ROOT_TOKEN: TOKEN,
    QUARRY_EXTERNAL_URL: host,
    QUARRY_PASSWORD_HASH_COST: '1024',
    QUARRY_LOG_LEVEL: 'warn',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
});

after(async () => {
  await server?.kill('SIGKILL');
  await database.drop();
  git.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: any;
}

/** A request through the API; null when no answer came (the server died under it). */
async function api(method: string, target: string, body?: unknown): Promise<Answer | null> {
  try {
    const res = await fetch(`${host}/api/v4${target}`, {
      method,
      headers: { 'private-token': TOKEN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
  } catch {
    return null;
  }
}

/** Answers other than 2xx, by request and status ('none' when the server died under it), for the report. */
const refusals = new Map<string, number>();
function ok(answer: Answer | null, what: string): answer is Answer {
  if (answer !== null && answer.status >= 200 && answer.status < 300) return true;
  const message = answer && answer.status < 500 ? ` ${JSON.stringify(answer.body?.message ?? answer.body?.error ?? '')}` : '';
  const key = `${what} ${answer?.status ?? 'none'}${message}`;
  refusals.set(key, (refusals.get(key) ?? 0) + 1);
  return false;
}

// ---- What was acknowledged -----------------------------------------------------------------------

interface ProjectRecord {
  id: number;
  path: string;
  defaultBranch: string | null;
}

const acknowledged = {
  users: [] as { id: number; username: string }[],
  groups: [] as { id: number; fullPath: string }[],
  projects: [] as ProjectRecord[],
  /** Commits through the API and pushes: the branch must point at the commit. */
  refs: [] as { projectId: number; branch: string; sha: string; via: 'api' | 'push' }[],
  deletions: new Set<number>(),
};
/** Projects whose deletion was asked for, answered or not: whether they remain is not known. */
const deletionAsked = new Set<number>();
let attempted = 0;
/** What the servers killed before logged. */
let earlierLogs = '';
let serial = 0;

function liveProject(): ProjectRecord | undefined {
  return pick(acknowledged.projects.filter((p) => !deletionAsked.has(p.id)));
}

const operations: { weight: number; run: () => Promise<void> }[] = [
  {
    weight: 2,
    async run() {
      const n = ++serial;
      const res = await api('POST', '/users', { username: `user${n}`, email: `user${n}@example.com`, name: `User ${n}`, password: 'durable-password-1', skip_confirmation: true });
      if (ok(res, 'POST /users')) acknowledged.users.push({ id: res.body.id, username: res.body.username });
    },
  },
  {
    weight: 1,
    async run() {
      const n = ++serial;
      const res = await api('POST', '/groups', { name: `Group ${n}`, path: `group${n}` });
      if (ok(res, 'POST /groups')) acknowledged.groups.push({ id: res.body.id, fullPath: res.body.full_path });
    },
  },
  {
    weight: 2,
    async run() {
      const n = ++serial;
      const group = random() < 0.5 ? pick(acknowledged.groups) : undefined;
      const initialized = random() < 0.7;
      const res = await api('POST', '/projects', {
        name: `Project ${n}`,
        path: `project${n}`,
        ...(group ? { namespace_id: group.id } : {}),
        initialize_with_readme: initialized,
      });
      // Commits start from the default branch where it has one (an empty repository has none yet).
      if (ok(res, 'POST /projects')) acknowledged.projects.push({ id: res.body.id, path: res.body.path_with_namespace, defaultBranch: initialized ? res.body.default_branch : null });
    },
  },
  {
    weight: 3,
    async run() {
      const project = liveProject();
      if (!project) return;
      const n = ++serial;
      const branch = `api-${n}`;
      const res = await api('POST', `/projects/${project.id}/repository/commits`, {
        branch,
        ...(project.defaultBranch ? { start_branch: project.defaultBranch } : {}),
        commit_message: `Commit ${n}`,
        actions: [{ action: 'create', file_path: `files/${n}.txt`, content: `content ${n} ${seed}\n` }],
      });
      if (ok(res, `POST commits${res && res.status >= 400 ? ` (project ${project.id} ${branch})` : ''}`)) acknowledged.refs.push({ projectId: project.id, branch, sha: res.body.id, via: 'api' });
    },
  },
  {
    weight: 2,
    async run() {
      const project = liveProject();
      if (!project) return;
      const n = ++serial;
      const dir = path.join(git.root, `push-${n}`);
      await git.ok(['init', '-q', '-b', 'work', dir]);
      const sha = await git.commit(dir, `pushed-${n}.txt`, `pushed ${n} ${seed}\n`, `Push ${n}`);
      const branch = `push-${n}`;
      const pushed = await git.run(['push', '-q', gitUrl(host, project.path, { login: 'root', password: TOKEN }), `HEAD:refs/heads/${branch}`], dir);
      fs.rmSync(dir, { recursive: true, force: true });
      if (pushed.code === 0) acknowledged.refs.push({ projectId: project.id, branch, sha, via: 'push' });
      else {
        const key = `git push: ${pushed.stderr.trim().split('\n').pop()?.replace(/'[^']*'/g, "'…'")}`;
        refusals.set(key, (refusals.get(key) ?? 0) + 1);
      }
    },
  },
  {
    weight: 0.5,
    async run() {
      const project = liveProject();
      if (!project) return;
      deletionAsked.add(project.id);
      const res = await api('DELETE', `/projects/${project.id}`);
      if (ok(res, 'DELETE project')) acknowledged.deletions.add(project.id);
    },
  },
];
const totalWeight = operations.reduce((sum, o) => sum + o.weight, 0);

function nextOperation(): () => Promise<void> {
  let r = random() * totalWeight;
  for (const o of operations) {
    r -= o.weight;
    if (r <= 0) return o.run;
  }
  return operations[0].run;
}

/** Writers write until told to stop; each waits for its write in flight to end (answered or cut). */
function startWriters(): { stop(): Promise<void> } {
  let stopped = false;
  const loops = Array.from({ length: WRITERS }, async () => {
    while (!stopped) {
      attempted++;
      await nextOperation()();
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

const acknowledgedCount = () =>
  acknowledged.users.length + acknowledged.groups.length + acknowledged.projects.length + acknowledged.refs.length + acknowledged.deletions.size;

async function queuedJobs(): Promise<{ id: number; kind: string; state: string; attempts: number; last_error: string | null }[]> {
  return database.query('select id, kind, state, attempts, last_error from background_jobs order by id');
}

test(`acknowledged writes survive ${KILLS} kills with SIGKILL (seed ${seed})`, { timeout: 240_000 }, async (t) => {
  // Some writes to start from, so that commits and pushes find projects from the first kill on.
  server = await startServer(env, port);
  for (let i = 0; i < 3; i++) await operations[2].run();

  for (let kill = 1; kill <= KILLS; kill++) {
    const writers = startWriters();
    // A random moment of the load: between 1.5 and 4 s into it.
    await new Promise((r) => setTimeout(r, 1500 + random() * 2500));
    assert.equal(await server.kill('SIGKILL'), 'SIGKILL');
    await writers.stop();
    t.diagnostic(`kill ${kill}: ${acknowledgedCount()} writes acknowledged of ${attempted} attempted so far`);
    earlierLogs += server.log();
    server = await startServer(env, port);
  }

  // A last stretch of load on the restarted server, ended gracefully.
  const writers = startWriters();
  await new Promise((r) => setTimeout(r, Number(process.env.QUARRY_TEST_LAST_LOAD_MS ?? 1000)));
  await writers.stop();

  // ---- Every acknowledged write is there -----------------------------------------------------------
  const lost: string[] = [];
  for (const user of acknowledged.users) {
    const res = await api('GET', `/users/${user.id}`);
    if (res?.status !== 200 || res.body.username !== user.username) lost.push(`user ${user.id} (${user.username}): ${res?.status}`);
  }
  for (const group of acknowledged.groups) {
    const res = await api('GET', `/groups/${group.id}`);
    if (res?.status !== 200 || res.body.full_path !== group.fullPath) lost.push(`group ${group.id} (${group.fullPath}): ${res?.status}`);
  }
  for (const project of acknowledged.projects) {
    const res = await api('GET', `/projects/${project.id}`);
    if (acknowledged.deletions.has(project.id)) {
      if (res?.status !== 404) lost.push(`the deletion of project ${project.id}: ${res?.status}`);
    } else if (!deletionAsked.has(project.id)) {
      if (res?.status !== 200 || res.body.path_with_namespace !== project.path) lost.push(`project ${project.id} (${project.path}): ${res?.status}`);
      else if (project.defaultBranch) {
        // Its first commit, the README, came with it.
        const branch = await api('GET', `/projects/${project.id}/repository/branches/${project.defaultBranch}`);
        if (branch?.status !== 200) lost.push(`the README commit on ${project.defaultBranch} of project ${project.id}: ${branch?.status}`);
      }
    }
  }
  for (const ref of acknowledged.refs) {
    if (deletionAsked.has(ref.projectId)) continue;
    const res = await api('GET', `/projects/${ref.projectId}/repository/branches/${ref.branch}`);
    if (res?.status !== 200 || res.body.commit.id !== ref.sha) lost.push(`${ref.via} ${ref.sha} on ${ref.branch} of project ${ref.projectId}: ${res?.status} ${res?.body?.commit?.id ?? ''}`);
  }
  const total = acknowledgedCount();
  t.diagnostic(`seed ${seed}: ${KILLS} kills, ${attempted} writes attempted, ${total} acknowledged, ${lost.length} lost`);
  t.diagnostic(`not acknowledged: ${JSON.stringify(Object.fromEntries(refusals))}`);
  const errors = (earlierLogs + server.log()).split('\n').filter((line) => /"level":(50|60)/.test(line));
  for (const line of errors) t.diagnostic(`logged: ${line.slice(0, 1500)}`);
  assert.deepEqual(lost, [], `acknowledged writes lost (seed ${seed})`);
  assert.ok(acknowledged.refs.some((r) => r.via === 'push') && acknowledged.refs.some((r) => r.via === 'api'), 'the load pushed and committed');

  // ---- Every queued background job runs --------------------------------------------------------------
  // Jobs waiting for a later time (retries, the intent of a ref change cut short) are brought forward.
  const deadline = Date.now() + 60_000;
  let jobs = await queuedJobs();
  while (jobs.some((j) => j.state !== 'failed') && Date.now() < deadline) {
    await database.query(`update background_jobs set run_at = $1 where state = 'queued'`, [new Date().toISOString()]);
    await new Promise((r) => setTimeout(r, 250));
    jobs = await queuedJobs();
  }
  assert.deepEqual(jobs, [], 'every background job ran, none failed');

  // ---- Every repository is whole ------------------------------------------------------------------
  const storage = path.join(dataDir, 'repositories');
  for (const id of acknowledged.deletions) assert.equal(fs.existsSync(repositoryPath(storage, id)), false, `the repository of deleted project ${id} was removed`);
  const repositories: string[] = [];
  for (const project of acknowledged.projects) {
    const dir = repositoryPath(storage, project.id);
    if (deletionAsked.has(project.id)) {
      if (fs.existsSync(dir)) repositories.push(dir);
    } else {
      assert.ok(fs.existsSync(dir), `project ${project.id} has its repository`);
      repositories.push(dir);
    }
  }
  for (const dir of repositories) {
    const fsck = await git.run(['--git-dir', dir, 'fsck', '--strict', '--no-dangling', '--no-progress']);
    assert.equal(fsck.code, 0, `git fsck of ${dir}: ${fsck.stderr}${fsck.stdout}`);
    assert.doesNotMatch(fsck.stderr + fsck.stdout, /error|missing|broken/i, `git fsck of ${dir}`);
  }
  t.diagnostic(`${repositories.length} repositories pass git fsck`);

  assert.equal(await server.kill('SIGTERM'), 0, server.log().slice(-4000));
  server = null;
});
