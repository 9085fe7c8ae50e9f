// The SSH server for git (ssh2, in this process), as the platform's gitlab-sshd serves: only the
// user `git`, only public keys, which sign in as their user or as a deploy key (the keys module);
// each session runs one command of the platform's shell (shell.ts) and nothing else: no terminal,
// no forwarding, no subsystem. Limits: connections at once, sessions per connection, failed
// sign-ins per connection, and the time a client has to sign in.
import net, { type AddressInfo, type Socket } from 'node:net';
import type Ssh2 from 'ssh2';
import type { AuthContext, CipherAlgorithm, Connection, ServerChannel, Session } from 'ssh2';
import { lazyModule } from '../core/lazy-module.ts';
import type { BaseContext } from '../core/context.ts';
import { gitProtocol } from '../git/smart-http.ts';
import { type ActiveKey, findActiveKey } from '../modules/keys/keys.finder.ts';
import type { HostKey } from './host-key.ts';
import { type ShellChannel, runShellCommand } from './shell.ts';

// Loaded when the server starts: the bundled server loads ssh2 only if SSH is on.
const ssh2 = lazyModule<typeof Ssh2>('ssh2');

/** The one user name clients sign in as (git@host). */
const SSH_USER = 'git';
/** OpenSSH's MaxAuthTries: keys refused on one connection before it is closed. */
const MAX_AUTH_TRIES = 6;
/** gitlab-sshd's concurrent_sessions_limit: sessions at once on one connection. */
const MAX_SESSIONS = 10;
/**
 * Ciphers offered. OpenSSH clients prefer chacha20-poly1305, which ssh2 runs without its native
 * addon at a fraction of the speed of AES, which Node runs in OpenSSL: it is left out, so that
 * clients choose AES.
 */
const CIPHERS: CipherAlgorithm[] = ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'aes128-ctr', 'aes192-ctr', 'aes256-ctr'];

export interface SshLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
  debug(details: object, message: string): void;
}

export interface SshServerOptions {
  ctx: BaseContext;
  hostKey: HostKey;
  host: string;
  port: number;
  maxConnections: number;
  loginGraceMs: number;
  log: SshLog;
}

export interface SshServer {
  readonly port: number;
  /** Stops taking connections, closes the idle ones, and resolves once those running a command are done. */
  close(): Promise<void>;
  /** Closes every connection now, commands in flight included. */
  closeAll(): void;
}

interface ConnectionState {
  socket: Socket;
  /** Set once the client has sent its version. */
  client: Connection | null;
  /** Sessions running a command. */
  busy: number;
}

const socketKey = (address: string | undefined, port: number | undefined) => `${address}:${port}`;

export async function startSshServer(options: SshServerOptions): Promise<SshServer> {
  const { ctx, log } = options;
  /** By the client's address and port, as ssh2 reports them. */
  const connections = new Map<string, ConnectionState>();
  let stopping = false;
  let drained: (() => void) | null = null;
  const settle = () => {
    if (drained && connections.size === 0) drained();
  };
  const end = (state: ConnectionState) => (state.client ? state.client.end() : state.socket.destroy());

  // The sockets are this server's own, handed to ssh2 once counted: a client that never gets as
  // far as signing in is cut off at the socket.
  const listener = net.createServer((socket) => {
    if (stopping || connections.size >= options.maxConnections) return socket.destroy();
    const key = socketKey(socket.remoteAddress, socket.remotePort);
    const state: ConnectionState = { socket, client: null, busy: 0 };
    connections.set(key, state);
    const grace = setTimeout(() => {
      log.debug({ ip: socket.remoteAddress }, 'SSH client did not sign in in time');
      socket.destroy();
    }, options.loginGraceMs);
    socket.once('close', () => {
      clearTimeout(grace);
      connections.delete(key);
      settle();
    });
    socket.once('ssh-ready', () => clearTimeout(grace));
    socket.on('error', () => {});
    // The handshake is a dozen small messages, each waiting on the last: Nagle's algorithm would
    // hold each one back for the client's delayed acknowledgement.
    socket.setNoDelay(true);
    server.injectSocket(socket);
  });

  const server = new (ssh2().Server)({ hostKeys: [options.hostKey.privateKey], ident: 'Quarry', algorithms: { cipher: CIPHERS } }, (client, info) => {
    const state = connections.get(socketKey(info.ip, info.port));
    if (!state) return client.end();
    state.client = client;
    // A client that vanishes mid-handshake is no error of ours.
    client.on('error', (error) => log.debug({ err: error, ip: info.ip }, 'SSH connection error'));

    let signedIn: { data: Buffer; key: ActiveKey } | null = null;
    const offered = new Map<string, Promise<ActiveKey | null>>();
    let failures = 0;
    client.on('authentication', (auth: AuthContext) => {
      void authenticate(auth).catch((error: unknown) => {
        log.error({ err: error }, 'SSH authentication failed');
        auth.reject();
      });
    });
    async function authenticate(auth: AuthContext): Promise<void> {
      const refuse = () => {
        failures++;
        auth.reject(['publickey']);
        if (failures >= MAX_AUTH_TRIES) client.end();
      };
      // The first request (method none) asks which methods there are: it is no failure.
      if (auth.method === 'none') return auth.reject(['publickey']);
      if (auth.method !== 'publickey' || auth.username !== SSH_USER || auth.key.algo === 'ssh-dss') return refuse();
      const id = auth.key.data.toString('base64');
      // A client asks whether a key would do, then signs with it: one look-up for both.
      if (!offered.has(id)) offered.set(id, findActiveKey(ctx.db, auth.key.data, ctx.now()));
      const key = await offered.get(id);
      if (!key) return refuse();
      if (auth.signature === undefined || auth.blob === undefined) return auth.accept();
      const parsed = ssh2().utils.parseKey(auth.key.data);
      if (parsed instanceof Error || Array.isArray(parsed) || !parsed.verify(auth.blob, auth.signature, auth.hashAlgo)) return refuse();
      signedIn = { data: auth.key.data, key };
      auth.accept();
    }

    client.once('ready', () => {
      state.socket.emit('ssh-ready');
      client.on('session', (accept, reject) => {
        if (stopping || state.busy >= MAX_SESSIONS) return reject();
        serveSession(accept(), state, client, signedIn as { data: Buffer; key: ActiveKey }, info.ip);
      });
    });
  });

  function serveSession(session: Session, state: ConnectionState, client: Connection, signedIn: { data: Buffer; key: ActiveKey }, ip: string): void {
    let protocol: string | null = null;
    // Only the variable git sends for its protocol version, as gitlab-sshd takes.
    session.on('env', (accept, reject, env) => {
      if (env.key !== 'GIT_PROTOCOL') return reject?.();
      protocol = gitProtocol(env.val);
      accept?.();
    });
    const run = async (channel: ServerChannel, commandLine: string | null) => {
      state.busy++;
      const closed = new Promise<void>((resolve) => channel.once('close', resolve));
      let open = true;
      void closed.then(() => (open = false));
      channel.on('error', (error: Error) => log.debug({ err: error, ip }, 'SSH channel error'));
      const shell: ShellChannel = { stdin: channel, stdout: channel, stderr: channel.stderr, closed };
      let status = 1;
      try {
        // The key as it is now: removed, expired or its owner blocked since the client signed in.
        const key = await findActiveKey(ctx.db, signedIn.data, ctx.now());
        if (key) status = await runShellCommand({ ctx, key, protocol, log }, commandLine, shell);
        else client.end();
      } catch (error) {
        log.error({ err: error, ip }, 'an SSH command failed');
      } finally {
        state.busy--;
      }
      if (open) {
        channel.exit(status);
        channel.end();
      }
      if (stopping && state.busy === 0) end(state);
    };
    session.once('exec', (accept, _reject, info) => void run(accept(), info.command));
    session.once('shell', (accept) => void run(accept(), null));
  }

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(options.port, options.host, () => {
      listener.off('error', reject);
      resolve();
    });
  });
  listener.on('error', (error: Error) => log.error({ err: error }, 'SSH server error'));
  const { port } = listener.address() as AddressInfo;

  return {
    port,
    close() {
      stopping = true;
      const closing = new Promise<void>((resolve) => listener.close(() => resolve()));
      const finished = new Promise<void>((resolve) => {
        drained = resolve;
      });
      for (const state of connections.values()) if (state.busy === 0) end(state);
      settle();
      return Promise.all([closing, finished]).then(() => undefined);
    },
    closeAll() {
      for (const state of connections.values()) state.socket.destroy();
    },
  };
}
