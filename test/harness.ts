// A fresh application per test file: in-memory SQLite, or a fresh PostgreSQL schema when
// DATABASE_URL is set. Requests go through app.inject.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { createDeps, prepare } from '../src/bootstrap.ts';
import { loadConfig } from '../src/config.ts';
import { systemContext } from '../src/core/context.ts';
import type { Deps } from '../src/core/deps.ts';
import { openDatabase } from '../src/db/database.ts';
import { backgroundJobKinds } from '../src/jobs/kinds.ts';
import type { JobOutcome } from '../src/jobs/queue.ts';
import { drainJobs } from '../src/jobs/worker.ts';
import type { DB, UserRow } from '../src/db/schema.ts';
import { issueToken } from '../src/modules/access-tokens/access-tokens.service.ts';
import { createUser } from '../src/modules/users/users.service.ts';
import { captureStartState } from '../src/testing/start-state.ts';
import type { CreateUserBody } from '../src/modules/users/users.schemas.ts';

export const ROOT_TOKEN = 'glpat-root-token-for-tests-0001';
export const BASE_URL = 'http://quarry.test';
export const PASSWORD = 'correct-horse-9';

export interface TestUser {
  user: UserRow;
  token: string;
}

export interface RequestOptions {
  token?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: unknown;
  /** Sends body as application/x-www-form-urlencoded text. */
  form?: string;
}

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  request(method: InjectOptions['method'], url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  get(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  post(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  put(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  del(url: string, options?: RequestOptions): Promise<LightMyRequestResponse>;
  /** Creates a user with a personal token (scopes api by default). */
  user(attrs?: Partial<CreateUserBody>, scopes?: string[]): Promise<TestUser>;
  /** Runs every due background job (the tests run no worker of their own); returns their outcomes. */
  runJobs(): Promise<JobOutcome[]>;
  /** Counts rows of a table, to prove a refused request wrote nothing. */
  count(table: keyof DB): Promise<number>;
  close(): Promise<void>;
}

let sequence = 0;

export async function createSchema(url: string): Promise<string> {
  const schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return schema;
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
}

export interface TestAppOptions {
  /** The application's clock, for tests that move time forward. */
  now?: () => Date;
  /** Ephemeral mode's /-/test routes, resetting to the state right after prepare (SQLite only). */
  testMode?: boolean;
  /**
   * Another node of that app's deployment: the same database and repository storages, a data
   * directory of its own (its push directories, caches), as nodes that share only the database
   * and the storages. Closing it leaves the database to the first app.
   */
  nodeOf?: TestApp;
}

/** The database each test app opened, for the nodes started beside it. */
const databases = new WeakMap<TestApp, { database: ReturnType<typeof openDatabase>; schema?: string }>();

/** A node's environment beside `first`: its storages (absolute), and its data directory seeded with the instance's identity and keys. */
function nodeEnv(first: TestApp, dataDir: string): Record<string, string> {
  for (const entry of fs.readdirSync(first.deps.config.dataDir, { withFileTypes: true })) {
    if (entry.isFile()) fs.copyFileSync(path.join(first.deps.config.dataDir, entry.name), path.join(dataDir, entry.name));
  }
  const storages = Object.entries(first.deps.config.repositoryStorages).map(([name, dir]) => `${name}=${dir}`);
  return { QUARRY_REPOSITORY_STORAGES: storages.join(',') };
}

export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-test-'));
  const url = process.env.DATABASE_URL || null;
  const first = options.nodeOf ? databases.get(options.nodeOf) : undefined;
  if (options.nodeOf && !first) throw new Error('nodeOf: not a test app');
  const config = loadConfig({
    QUARRY_DATA_DIR: dataDir,
    QUARRY_EXTERNAL_URL: BASE_URL,
    QUARRY_ROOT_TOKEN: ROOT_TOKEN,
    QUARRY_PASSWORD_HASH_COST: '1024',
    QUARRY_LOG_LEVEL: 'silent',
    // Requests handed in by app.inject run back to back without the loop ever reaching its timers
    // (2,000 of them: 2 s without one), so the loop looks late however idle the machine: that is
    // the harness, not overload. Injected requests are never refused for it, but the few a test
    // sends over a socket among them would be. Servers run as processes keep the default.
    QUARRY_OVERLOAD_LAG: '0',
    // No SSH server unless a test starts one (on a free port): test apps never contend for 2222.
    QUARRY_SSH_PORT: '0',
    ...(url ? { DATABASE_URL: url } : {}),
    ...(options.nodeOf ? nodeEnv(options.nodeOf, dataDir) : {}),
    ...env,
  });
  const schema = first ? first.schema : url ? await createSchema(url) : undefined;
  const database = first ? first.database : openDatabase({ url, pgSchema: schema, poolSize: 4 });
  const deps: Deps = { ...createDeps(config, database), ...(options.now ? { now: options.now } : {}) };
  await prepare(deps);
  const startState = options.testMode ? await captureStartState(deps) : null;
  const app = await buildApp(deps, options.testMode ? { testMode: { startState: () => startState } } : {});
  await app.ready();

  const request: TestApp['request'] = (method, target, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (options.token) headers['private-token'] = options.token;
    let payload: InjectOptions['payload'];
    if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = options.form;
    } else if (options.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
    }
    return app.inject({ method, url: target, headers, payload, query: options.query });
  };

  const testApp: TestApp = {
    app,
    deps,
    request,
    get: (u, o) => request('GET', u, o),
    post: (u, o) => request('POST', u, o),
    put: (u, o) => request('PUT', u, o),
    del: (u, o) => request('DELETE', u, o),
    async user(attrs = {}, scopes = ['api']) {
      sequence += 1;
      const username = attrs.username ?? `user${sequence}_${randomBytes(2).toString('hex')}`;
      const user = await createUser(systemContext(deps), {
        username,
        email: `${username}@example.com`,
        name: `User ${username}`,
        password: PASSWORD,
        skip_confirmation: true,
        ...attrs,
      });
      const { token } = await issueToken(systemContext(deps), { userId: user.id, name: 'test', scopes }, user);
      return { user, token };
    },
    runJobs: () => drainJobs(deps, backgroundJobKinds),
    async count(table) {
      const row = await deps.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async close() {
      await app.close();
      if (!first) {
        await database.close();
        if (url && schema) await dropSchema(url, schema);
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  databases.set(testApp, { database, schema });
  return testApp;
}
