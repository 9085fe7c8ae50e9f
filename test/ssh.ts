// The SSH server of a test app, and the system OpenSSH client as its client: key pairs made with
// ssh-keygen, `ssh` with no configuration, agent or known hosts of the user running the tests, and
// the GIT_SSH_COMMAND that makes git use it.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type SshServer, startSshServer } from '../src/ssh/server.ts';
import { ensureHostKey } from '../src/ssh/host-key.ts';
import { type TestApp, createTestApp } from './harness.ts';
import { freePort } from './listening.ts';

const quiet = { info() {}, warn() {}, error() {}, debug() {} };

export interface SshTestApp {
  t: TestApp;
  ssh: SshServer;
  port: number;
  /** The app also listens for HTTP here (its external URL), for git over HTTP beside SSH. */
  host: string;
  /** A scratch directory for keys, removed by close(). */
  dir: string;
  close(): Promise<void>;
}

/** A test app listening on 127.0.0.1, with its SSH server on a free port, which ssh_url_to_repo names. */
export async function sshTestApp(env: Record<string, string> = {}, limits: { maxConnections?: number; loginGraceMs?: number } = {}): Promise<SshTestApp> {
  const [port, httpPort] = [await freePort(), await freePort()];
  const host = `http://127.0.0.1:${httpPort}`;
  const t = await createTestApp({ ...env, QUARRY_EXTERNAL_URL: host, QUARRY_SSH_PORT: String(port) });
  await t.app.listen({ port: httpPort, host: '127.0.0.1' });
  const ssh = await startSshServer({
    ctx: t.deps,
    hostKey: ensureHostKey(t.deps.config.dataDir),
    host: '127.0.0.1',
    port,
    maxConnections: limits.maxConnections ?? 128,
    loginGraceMs: limits.loginGraceMs ?? 60_000,
    log: quiet,
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quarry-ssh-test-'));
  return {
    t,
    ssh,
    port,
    host,
    dir,
    async close() {
      ssh.closeAll();
      await ssh.close();
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface KeyPair {
  /** The private key's file, for `ssh -i`. */
  file: string;
  /** The OpenSSH line of the public key. */
  publicKey: string;
}

let keys = 0;

/** A new key pair (ed25519 unless told) without a passphrase. */
export function keyPair(dir: string, type: 'ed25519' | 'rsa' | 'ecdsa' = 'ed25519'): KeyPair {
  const file = path.join(dir, `key-${++keys}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, '-N', '', '-C', `key-${keys}`, '-f', file]);
  return { file, publicKey: fs.readFileSync(`${file}.pub`, 'utf8').trim() };
}

/** The ssh command line that signs in with this key only, trusting the server unseen and reading no configuration. */
export function sshCommand(port: number, key: KeyPair): string {
  return `ssh -F /dev/null -i ${key.file} -o IdentitiesOnly=yes -o IdentityAgent=none -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p ${port}`;
}

export interface SshRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `ssh git@127.0.0.1 [command]` (or another user's name) with the key; standard input is `input`, or nothing. */
export function runSsh(port: number, key: KeyPair, command: string[] = [], input = '', user = 'git'): Promise<SshRun> {
  const [ssh, ...args] = sshCommand(port, key).split(' ');
  return new Promise((resolve) => {
    const child = execFile(ssh, [...args, `${user}@127.0.0.1`, ...command], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: os.tmpdir() }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 255) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

/** A new key of the user's own (POST /user/keys). */
export async function userKey(w: SshTestApp, token: string, body: Record<string, unknown> = {}): Promise<KeyPair> {
  const key = keyPair(w.dir);
  const res = await w.t.post('/api/v4/user/keys', { token, body: { title: path.basename(key.file), key: key.publicKey, ...body } });
  if (res.statusCode !== 201) throw new Error(`POST /user/keys: ${res.statusCode} ${res.body}`);
  return key;
}

/** A new deploy key enabled on a project (POST /projects/:id/deploy_keys) by whoever holds the token. */
export async function deployKey(w: SshTestApp, token: string, projectId: number, canPush: boolean): Promise<KeyPair & { id: number }> {
  const key = keyPair(w.dir);
  const res = await w.t.post(`/api/v4/projects/${projectId}/deploy_keys`, { token, body: { title: path.basename(key.file), key: key.publicKey, can_push: canPush } });
  if (res.statusCode !== 201) throw new Error(`POST deploy_keys: ${res.statusCode} ${res.body}`);
  return { ...key, id: res.json().id };
}
