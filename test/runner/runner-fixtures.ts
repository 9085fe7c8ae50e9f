// What the runner's end-to-end tests share: a real `quarry serve` (with or without its built-in
// runner) on a fresh database, API calls with the root token, pushing a project with the git
// command line, and waiting for pipelines and jobs to reach a state.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../listening.ts';
import { type GitCli, gitCli, gitUrl } from '../git-cli.ts';
import { MAIN, type ServerProcess, type TestDatabase, freshDatabase, startServer } from '../server-process.ts';

export const ROOT_TOKEN = 'glpat-root-token-for-runner-e2e-01';

export interface Instance {
  readonly url: string;
  readonly server: ServerProcess;
  readonly dataDir: string;
  readonly git: GitCli;
  api<T = any>(method: string, target: string, body?: unknown): Promise<{ status: number; body: T; text: string }>;
  /** Creates a project and pushes `files` to its `main` branch; its id. */
  pushProject(name: string, files: Record<string, string>): Promise<{ id: number; path: string }>;
  /** Waits until `check` returns a value (not undefined), polling every 100 ms; on timeout the error tells what `describe` says. */
  until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number, describe?: () => Promise<string>): Promise<T>;
  /** Starts `quarry runner` as a process of its own. */
  runner(args: string[], env?: Record<string, string>): RunnerProcess;
  close(): Promise<void>;
}

export interface RunnerProcess {
  readonly child: ChildProcess;
  log(): string;
  readonly exited: Promise<number | string | null>;
}

export async function startInstance(env: Record<string, string> = {}): Promise<Instance> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-runner-e2e-'));
  const database: TestDatabase = await freshDatabase('quarry_runner', dataDir);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? os.tmpdir(),
    QUARRY_DATA_DIR: dataDir,
    QUARRY_EXTERNAL_URL: url,
    QUARRY_ROOT_TOKEN: ROOT_TOKEN,
    QUARRY_PASSWORD_HASH_COST: '1024',
    QUARRY_LOG_LEVEL: 'warn',
    QUARRY_RUNNER_LONG_POLL_SECONDS: '5',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
  };
  const server = await startServer({ ...base, ...env }, port, 60_000);
  const git = gitCli();
  const runners: RunnerProcess[] = [];

  const api: Instance['api'] = async (method, target, body) => {
    const res = await fetch(`${url}/api/v4${target}`, {
      method,
      headers: { 'private-token': ROOT_TOKEN, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (a log)
    }
    // A server error carries the server's log, so that a failed assertion shows its cause.
    const shown = res.status >= 500 ? `${text}\n--- server log ---\n${server.log().slice(-6000)}` : text;
    return { status: res.status, body: parsed as any, text: shown };
  };

  const instance: Instance = {
    url,
    server,
    dataDir,
    git,
    api,
    async pushProject(name, files) {
      const created = await api('POST', '/projects', { name, visibility: 'private' });
      assert.equal(created.status, 201, created.text);
      const dir = path.join(git.root, name);
      await git.ok(['init', '-q', '-b', 'main', dir]);
      const entries = Object.entries(files);
      for (const [file, content] of entries.slice(0, -1)) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), content);
        await git.ok(['add', '--', file], dir);
      }
      const [lastFile, lastContent] = entries.at(-1) as [string, string];
      await git.commit(dir, lastFile, lastContent, 'Add the CI configuration');
      await git.ok(['push', '-q', gitUrl(url, created.body.path_with_namespace, { login: 'root', password: ROOT_TOKEN }), 'main'], dir);
      return { id: created.body.id, path: created.body.path_with_namespace };
    },
    async until(what, check, timeoutMs = 60_000, describe) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      while (Date.now() < deadline) {
        try {
          const value = await check();
          if (value !== undefined) return value;
        } catch (error) {
          last = error;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      const details = describe ? await describe().catch((error: unknown) => String(error)) : '';
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}\n${details}\n--- server log ---\n${server.log().slice(-6000)}`);
    },
    runner(args, extra = {}) {
      const child = spawn(process.execPath, [MAIN, 'runner', '--url', url, ...args], { env: { ...base, QUARRY_LOG_LEVEL: 'info', ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout?.on('data', (c) => (output += c));
      child.stderr?.on('data', (c) => (output += c));
      const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
      const proc = { child, log: () => output, exited };
      runners.push(proc);
      return proc;
    },
    async close() {
      for (const r of runners) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
      await server.kill('SIGTERM');
      git.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return instance;
}

/** The jobs of a pipeline by name (bridges excluded), newest attempt of each. */
export async function jobsByName(instance: Instance, projectId: number, pipelineId: number): Promise<Map<string, any>> {
  const res = await instance.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?per_page=100`);
  assert.equal(res.status, 200, res.text);
  return new Map((res.body as any[]).map((j) => [j.name, j]));
}

/** The project's pipelines, newest first. */
export async function pipelines(instance: Instance, projectId: number): Promise<any[]> {
  const res = await instance.api('GET', `/projects/${projectId}/pipelines`);
  assert.equal(res.status, 200, res.text);
  return res.body;
}

export async function traceOf(instance: Instance, projectId: number, jobId: number): Promise<string> {
  return (await instance.api('GET', `/projects/${projectId}/jobs/${jobId}/trace`)).text;
}
