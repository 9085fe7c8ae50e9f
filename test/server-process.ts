// Real `quarry serve` processes for the tests that kill, restart or multiply them: a fresh
// database for them (a database of its own on PostgreSQL, a file under the data directory on
// SQLite), starting and waiting until ready, killing, and reading the database beside them.
import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';

export const MAIN = path.resolve(import.meta.dirname, '../src/main.js');

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  /** DATABASE_URL for the servers, or null for SQLite under their data directory. */
  readonly url: string | null;
  /** Runs a query on it (parameters as $1, $2 … on both), returning the rows. */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

/** A fresh database: on PostgreSQL (DATABASE_URL set) one created for the caller, else the SQLite file of dataDir. */
export async function freshDatabase(name: string, dataDir: string): Promise<TestDatabase> {
  const base = process.env.DATABASE_URL;
  if (!base) {
    const file = path.join(dataDir, 'quarry.sqlite3');
    let db: DatabaseSync | null = null;
    return {
      url: null,
      async query<T>(text: string, params: unknown[] = []) {
        if (!db) {
          db = new DatabaseSync(file);
          db.exec('PRAGMA busy_timeout = 10000');
        }
        const statement = db.prepare(text.replace(/\$\d+/g, '?'));
        const args = params as (string | number | null)[];
        if (statement.columns().length > 0) return statement.all(...args) as T[];
        statement.run(...args);
        return [];
      },
      async drop() {
        db?.close();
        db = null;
      },
    };
  }
  const database = `${name}_${process.pid}_${Date.now().toString(36)}`;
  await adminQuery(base, `create database ${database}`);
  const url = new URL(base);
  url.pathname = `/${database}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  // A client the forced drop below (or a killed server's recovery) terminates reports it here,
  // not as an uncaught exception of the test.
  pool.on('error', () => {});
  return {
    url: url.toString(),
    async query<T>(text: string, params: unknown[] = []) {
      return (await pool.query(text, params)).rows as T[];
    },
    async drop() {
      await pool.end();
      await adminQuery(base, `drop database if exists ${database} with (force)`);
    },
  };
}

function get(port: number, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: target, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** What it logged (stdout and stderr), as JSON lines. */
  log(): string;
  /** Resolves with the exit code or signal once it has exited. */
  readonly exited: Promise<number | string | null>;
  kill(signal: NodeJS.Signals): Promise<number | string | null>;
}

/** Starts `quarry serve` on port and resolves once /-/readiness answers 200. */
export async function startServer(env: Record<string, string>, port: number, timeoutMs = 30_000): Promise<ServerProcess> {
  // Without the built-in runner unless asked: these servers' tests play the runners themselves.
  // Without the SSH server too, so that servers started side by side never contend for its port.
  const child = spawn(process.execPath, [MAIN, 'serve'], { env: { QUARRY_BUILTIN_RUNNER: '0', QUARRY_SSH_PORT: '0', ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c) => (output += c));
  child.stderr?.on('data', (c) => (output += c));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const server: ServerProcess = {
    child,
    port,
    log: () => output,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited while starting:\n${output.slice(-4000)}`);
    try {
      if ((await get(port, '/-/readiness')) === 200) return server;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not become ready in ${timeoutMs} ms:\n${output.slice(-4000)}`);
}
