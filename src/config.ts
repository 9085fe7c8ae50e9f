// Environment → a frozen, validated Config. A bad value stops the process with a one-line reason.
import { isIP } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type RepositoryStorages, parseRepositoryStorages } from './git/storages.ts';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Repository storage name → directory; always has `default`. */
  readonly repositoryStorages: RepositoryStorages;
  /** postgres://… when set; otherwise the embedded SQLite database under dataDir. */
  readonly databaseUrl: string | null;
  /** Base of every web_url and Link URL, without a trailing slash. */
  readonly externalUrl: string;
  readonly rootPassword: string | null;
  readonly rootToken: string | null;
  /** Largest accepted request body, in bytes. */
  readonly bodyLimit: number;
  /** Most actions one commit request may carry (400 above); 0: only the body limit bounds them. */
  readonly commitMaxActions: number;
  /** Largest push over git HTTP (the request body, also once uncompressed), in bytes. */
  readonly gitMaxPushBytes: number;
  /** Requests allowed per client in each rate-limit period; 0 turns the limit off. */
  readonly rateLimitRequests: number;
  readonly rateLimitPeriodSeconds: number;
  /** redis:// or rediss://: rate limits and the failed-authentication ban are counted there, across every process and node. */
  readonly redisUrl: string | null;
  /** smtp:// or smtps:// (QUARRY_SMTP_URL): mail goes out through that server; null writes each message to the log instead. */
  readonly smtpUrl: string | null;
  /** The sender of every message (QUARRY_EMAIL_FROM); by default quarry@ the external URL's host. */
  readonly emailFrom: string;
  /** Failed authentications (git over HTTP, sign-in) from one address within authBanFindSeconds that ban it; 0 turns the ban off. */
  readonly authBanMaxFailures: number;
  readonly authBanFindSeconds: number;
  /** How long a banned address's credentials are refused. */
  readonly authBanSeconds: number;
  readonly logLevel: string;
  /** Impersonation tokens stop working when this is false. */
  readonly impersonationEnabled: boolean;
  /** When on, an administrator's token needs the admin_mode scope to act as an administrator. */
  readonly adminMode: boolean;
  /** Work factor of the password hash (scrypt N). */
  readonly passwordHashCost: number;
  /** Server processes sharing the port and the database; 1 serves from the starting process. */
  readonly workers: number;
  /** Limits on a client, in milliseconds: to send its headers, its whole request, and to stay silent. */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** After SIGTERM, how long requests in flight may take before their connections are closed. */
  readonly shutdownTimeoutMs: number;
  /**
   * Integration-test mode (QUARRY_EPHEMERAL): SQLite in memory, the data directory a temporary one
   * removed at exit, and the /-/test routes.
   */
  readonly ephemeral: boolean;
  /** A seed document (YAML or JSON) applied at start (QUARRY_SEED); null for none. */
  readonly seedFile: string | null;
  /** DATABASE_URL was set and is ignored (ephemeral mode), for the log. */
  readonly ignoredDatabaseUrl: boolean;
  /** Requests a process serves at once; beyond, 503 with Retry-After (the health probes excepted). */
  readonly maxInFlight: number;
  /** How long a runner's job request waits for a job (QUARRY_RUNNER_LONG_POLL_SECONDS; 0: answers at once). */
  readonly runnerLongPollSeconds: number;
  /** The largest job artifact a runner may upload (QUARRY_ARTIFACTS_MAX_SIZE, bytes). */
  readonly artifactsMaxBytes: number;
  /** A job whose log would reach this many bytes fails with trace_size_exceeded (QUARRY_CI_MAX_TRACE_SIZE); 0: no limit. */
  readonly ciMaxTraceBytes: number;
  /** A running job without an update for this long fails as stuck (QUARRY_CI_STUCK_RUNNING_SECONDS). */
  readonly ciStuckRunningSeconds: number;
  /** A job pending this long fails as stuck (QUARRY_CI_STUCK_PENDING_SECONDS); one no runner can take, after ciStuckRunningSeconds. */
  readonly ciStuckPendingSeconds: number;
  /** `quarry serve` starts the built-in runner (QUARRY_BUILTIN_RUNNER; off in ephemeral mode unless asked). */
  readonly builtinRunner: boolean;
  /** Lateness of the event loop, in milliseconds, past which new requests get that 503 too while it is overloaded; 0: never. */
  readonly overloadLagMs: number;
  /** Address ranges (`address/prefix`, IPv4 or IPv6) besides loopback that may read /-/metrics. */
  readonly metricsAllow: readonly string[];
  /** Pages (QUARRY_PAGES_ENABLED): the pages domains API and the sites; off, their routes answer 404 and no site is published. */
  readonly pagesEnabled: boolean;
  /** The pages host (QUARRY_PAGES_DOMAIN, lower case): sites are served at `<namespace>.<pagesDomain>`. */
  readonly pagesDomain: string;
  /** Where sites are also served over TLS, with each custom domain's certificate (QUARRY_PAGES_HTTPS_PORT); null: not. */
  readonly pagesHttpsPort: number | null;
  /** Custom domains must prove themselves with a DNS TXT record before they are served (QUARRY_PAGES_DOMAIN_VERIFICATION). */
  readonly pagesDomainVerification: boolean;
  /** DNS servers (`address` or `address:port`) that verification asks (QUARRY_PAGES_DNS_SERVERS); empty: the system's. */
  readonly pagesDnsServers: readonly string[];
  /** POST /projects/remote-import (QUARRY_REMOTE_IMPORT): off by default, as the platform's feature flag; off, the route answers 404. */
  readonly remoteImportEnabled: boolean;
  /** The most an import archive may hold once decompressed (QUARRY_IMPORT_MAX_DECOMPRESSED_SIZE, bytes); a larger one fails its import. */
  readonly importMaxDecompressedBytes: number;
  /** The SSH server for git, on HOST; null when it is off (QUARRY_SSH_PORT=0). */
  readonly ssh: SshConfig | null;
  /**
   * What every project's ssh_url_to_repo starts with, followed by `<full path>.git`: the SSH server's
   * address (`ssh://git@host:port/`, or `git@host:` on port 22), and the platform's usual form when
   * the server is off.
   */
  readonly sshUrlPrefix: string;
  /**
   * How many times a webhook delivery that fails is tried in all (QUARRY_WEBHOOK_ATTEMPTS, 1 to 10):
   * 1, as in 14.x, sends once; more retries with the job queue's backoff, as later releases do.
   */
  readonly webhookAttempts: number;
  /**
   * Hooks that keep failing are disabled for a while, then for good (QUARRY_WEBHOOK_AUTO_DISABLE), as
   * later releases do; off by default, as in 14.x.
   */
  readonly webhookAutoDisable: boolean;
}

export interface SshConfig {
  /** QUARRY_SSH_PORT; `auto` is resolved to a free port before the configuration is final. */
  readonly port: number | 'auto';
  /** Connections served at once; more are closed unanswered (QUARRY_SSH_MAX_CONNECTIONS). */
  readonly maxConnections: number;
  /** How long a client has to authenticate before its connection is closed (QUARRY_SSH_LOGIN_GRACE_TIME). */
  readonly loginGraceMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** A count of server processes: a whole number, or `auto` for one per available core. */
function workerCount(env: Env): number {
  const raw = env.QUARRY_WORKERS;
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto') return os.availableParallelism();
  const count = /^\d+$/.test(raw) ? Number(raw) : 0;
  if (count < 1 || count > 64) throw new ConfigError(`QUARRY_WORKERS must be auto or a whole number from 1 to 64, got "${raw}"`);
  return count;
}

/** A comma-separated list of addresses and CIDR ranges, each as `address/prefix`. */
function addressRanges(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((item) => {
    const entry = item.trim();
    const [address, prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const valid = family !== 0 && rest.length === 0 && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits));
    if (!valid) throw new ConfigError(`${name} must be a comma-separated list of IPv4 or IPv6 addresses or CIDR ranges (e.g. 10.0.0.0/8,fd00::/8), got "${entry}"`);
    return `${address}/${prefix === undefined ? bits : Number(prefix)}`;
  });
}

/** A DNS name of letters, digits and hyphens, in lower case. */
function hostName(env: Env, name: string, fallback: string): string {
  const raw = (env[name] || fallback).toLowerCase().replace(/\.$/, '');
  const label = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
  if (raw.length > 253 || !raw.split('.').every((part) => label.test(part))) throw new ConfigError(`${name} must be a host name (e.g. pages.example.com), got "${raw}"`);
  return raw;
}

/** A comma-separated list of DNS servers, each an IP address with an optional port. */
function dnsServers(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((item) => {
    const entry = item.trim();
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(entry);
    const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(entry);
    const [address, port] = bracketed ? [bracketed[1], bracketed[2]] : plain ? [plain[1], plain[2]] : [entry, undefined];
    if (isIP(address) === 0 || (port !== undefined && Number(port) > 65535)) throw new ConfigError(`${name} must be a comma-separated list of DNS server addresses (e.g. 10.0.0.2,10.0.0.3:5353), got "${entry}"`);
    return entry;
  });
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(raw: string, name: string, protocols: string[]): URL {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}, got "${raw}"`);
  }
  return parsed;
}

/**
 * The host of the default external URL: the address the server listens on, so that clients that
 * compare the URLs in answers with the one they were given (python-gitlab warns) find the same;
 * `localhost` when it listens on every address.
 */
function externalHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** QUARRY_SSH_PORT: a port, `auto` for a free one, or 0 for no SSH server; off by default in ephemeral mode, so that test instances never contend for one port. */
function sshPort(env: Env, ephemeral: boolean): number | 'auto' {
  if (env.QUARRY_SSH_PORT === 'auto') return 'auto';
  return integer(env, 'QUARRY_SSH_PORT', ephemeral ? 0 : 2222, 0, 65535);
}

/**
 * The start of ssh_url_to_repo: an ssh:// URL naming the port, or the scp form on port 22 and
 * while the server is off (or its port is not chosen yet: `quarry serve` chooses it first).
 */
function sshUrlPrefix(externalUrl: string, port: number | 'auto' | null): string {
  const { hostname } = new URL(externalUrl);
  return typeof port === 'number' && port !== 22 ? `ssh://git@${hostname}:${port}/` : `git@${hostname}:`;
}

export function loadConfig(env: Env = process.env): Config {
  const ephemeral = flag(env, 'QUARRY_EPHEMERAL', false);
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const dataDir = path.resolve(env.QUARRY_DATA_DIR || './data');
  let repositoryStorages: RepositoryStorages;
  try {
    repositoryStorages = parseRepositoryStorages(env.QUARRY_REPOSITORY_STORAGES, dataDir);
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  // Ephemeral mode keeps its database in memory. DATABASE_URL is ignored rather than refused: the
  // test suites that start Quarry as a fixture often set it for a database of their own.
  const ignoredDatabaseUrl = ephemeral && Boolean(env.DATABASE_URL);
  const databaseUrl = ephemeral ? null : env.DATABASE_URL || null;
  if (databaseUrl) url(databaseUrl, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  if (ephemeral && env.QUARRY_REPOSITORY_STORAGES) {
    const outside = Object.entries(repositoryStorages).find(([, dir]) => path.relative(dataDir, dir).startsWith('..') || path.isAbsolute(path.relative(dataDir, dir)));
    if (outside) throw new ConfigError(`QUARRY_EPHEMERAL: the directory of repository storage "${outside[0]}" must be relative (under the temporary data directory), got ${outside[1]}`);
  }
  const external = env.QUARRY_EXTERNAL_URL || `http://${externalHost(host)}:${port}`;
  url(external, 'QUARRY_EXTERNAL_URL', ['http:', 'https:']);
  const rootPassword = env.QUARRY_ROOT_PASSWORD || null;
  if (rootPassword !== null && rootPassword.length < 8) {
    throw new ConfigError('QUARRY_ROOT_PASSWORD must have at least 8 characters');
  }
  const rootToken = env.QUARRY_ROOT_TOKEN || null;
  if (rootToken !== null && !/^[\x21-\x7e]{20,255}$/.test(rootToken)) {
    throw new ConfigError('QUARRY_ROOT_TOKEN must be 20 to 255 printable characters without spaces');
  }
  const redisUrl = env.REDIS_URL || null;
  if (redisUrl) url(redisUrl, 'REDIS_URL', ['redis:', 'rediss:']);
  const smtpUrl = env.QUARRY_SMTP_URL || null;
  if (smtpUrl) url(smtpUrl, 'QUARRY_SMTP_URL', ['smtp:', 'smtps:']);
  const emailFrom = env.QUARRY_EMAIL_FROM || `quarry@${new URL(external).hostname}`;
  if (!/^[^\s@]+@[^\s@]+$/.test(emailFrom)) throw new ConfigError(`QUARRY_EMAIL_FROM must be an email address, got "${emailFrom}"`);
  // A test fixture reads the ready line; request logs would only fill its pipe.
  const logLevel = env.QUARRY_LOG_LEVEL || (ephemeral ? 'warn' : 'info');
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`QUARRY_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  const seconds = (name: string, fallback: number) => integer(env, name, fallback, 1, 86_400) * 1000;
  const requestTimeoutMs = seconds('QUARRY_REQUEST_TIMEOUT', 300);
  // Node refuses a headers limit above the request's.
  const headersTimeoutMs = Math.min(seconds('QUARRY_HEADERS_TIMEOUT', 30), requestTimeoutMs);
  // An ephemeral instance's passwords protect nothing that outlives it: the cheapest hash starts it faster.
  const cost = integer(env, 'QUARRY_PASSWORD_HASH_COST', ephemeral ? 1024 : 16384, 1024, 1048576);
  if ((cost & (cost - 1)) !== 0) throw new ConfigError('QUARRY_PASSWORD_HASH_COST must be a power of two');
  const workers = workerCount(env);
  if (ephemeral && workers > 1) {
    throw new ConfigError(`QUARRY_EPHEMERAL keeps the database in one process's memory: QUARRY_WORKERS must be 1, got ${env.QUARRY_WORKERS}`);
  }
  const seedFile = env.QUARRY_SEED ? path.resolve(env.QUARRY_SEED) : null;
  if (seedFile && workers > 1) {
    throw new ConfigError('QUARRY_SEED applies the seed in the serving process: with QUARRY_WORKERS above 1, run `quarry seed FILE` before starting the server');
  }
  const sshPortValue = sshPort(env, ephemeral);
  const ssh: SshConfig | null =
    sshPortValue === 0
      ? null
      : Object.freeze({
          port: sshPortValue,
          // The same bound as requests in flight: every connection may be running a git process.
          maxConnections: integer(env, 'QUARRY_SSH_MAX_CONNECTIONS', 128, 1, 100_000),
          // OpenSSH's LoginGraceTime, which gitlab-sshd also defaults to.
          loginGraceMs: seconds('QUARRY_SSH_LOGIN_GRACE_TIME', 60),
        });
  return Object.freeze({
    port,
    host,
    dataDir,
    repositoryStorages,
    databaseUrl,
    externalUrl: external.replace(/\/+$/, ''),
    rootPassword,
    rootToken,
    bodyLimit: integer(env, 'QUARRY_BODY_LIMIT', 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    // The platform sets no number (only the size of the request bounds it); one is set here because a
    // commit's work grows with its actions and parts of it hold the event loop: 10,000 keep one commit
    // within a few seconds and its longest stall under a fifth of a second.
    commitMaxActions: integer(env, 'QUARRY_COMMIT_MAX_ACTIONS', 10_000, 0, 10_000_000),
    gitMaxPushBytes: integer(env, 'QUARRY_GIT_MAX_PUSH_BYTES', 1024 * 1024 * 1024, 1024, 1024 ** 4),
    rateLimitRequests: integer(env, 'QUARRY_RATE_LIMIT_REQUESTS', 0, 0, 1_000_000_000),
    rateLimitPeriodSeconds: integer(env, 'QUARRY_RATE_LIMIT_PERIOD', 60, 1, 86_400),
    redisUrl,
    smtpUrl,
    emailFrom,
    // The platform's ban of failed Git HTTP authentications: 30 within 3 minutes ban an address for an hour.
    authBanMaxFailures: integer(env, 'QUARRY_AUTH_BAN_MAX_FAILURES', 30, 0, 1_000_000),
    authBanFindSeconds: integer(env, 'QUARRY_AUTH_BAN_FIND_TIME', 180, 1, 86_400),
    authBanSeconds: integer(env, 'QUARRY_AUTH_BAN_TIME', 3600, 1, 7 * 86_400),
    logLevel,
    impersonationEnabled: flag(env, 'QUARRY_IMPERSONATION_ENABLED', true),
    adminMode: flag(env, 'QUARRY_ADMIN_MODE', false),
    passwordHashCost: cost,
    workers,
    headersTimeoutMs,
    requestTimeoutMs,
    // Beyond the 72 s a kept-alive connection is announced to wait, so that it is never cut first.
    idleTimeoutMs: seconds('QUARRY_IDLE_TIMEOUT', 75),
    shutdownTimeoutMs: seconds('QUARRY_SHUTDOWN_TIMEOUT', 30),
    ephemeral,
    seedFile,
    ignoredDatabaseUrl,
    maxInFlight: integer(env, 'QUARRY_MAX_IN_FLIGHT', 128, 1, 100_000),
    // On by default, and acted on only once the loop has run late for a sustained while (see
    // core/load-shedding.ts), so that a server sharing a busy machine is not taken for overloaded.
    overloadLagMs: integer(env, 'QUARRY_OVERLOAD_LAG', 200, 0, 60_000),
    metricsAllow: Object.freeze(addressRanges(env, 'QUARRY_METRICS_ALLOW')),
    // 50 s, as deployments of the platform commonly hold a runner's request in Workhorse.
    runnerLongPollSeconds: integer(env, 'QUARRY_RUNNER_LONG_POLL_SECONDS', 50, 0, 600),
    // The platform's default maximum artifacts size: 100 MB.
    artifactsMaxBytes: integer(env, 'QUARRY_ARTIFACTS_MAX_SIZE', 100 * 1024 * 1024, 1024, 1024 ** 4),
    // The platform's plan limit ci_jobs_trace_size_limit: 100 MB.
    ciMaxTraceBytes: integer(env, 'QUARRY_CI_MAX_TRACE_SIZE', 100 * 1024 * 1024, 0, 1024 ** 4),
    // The platform's StuckCiJobsWorker: an hour without news of a running job, a day pending.
    ciStuckRunningSeconds: integer(env, 'QUARRY_CI_STUCK_RUNNING_SECONDS', 3600, 60, 30 * 86_400),
    ciStuckPendingSeconds: integer(env, 'QUARRY_CI_STUCK_PENDING_SECONDS', 86_400, 60, 30 * 86_400),
    // A test instance leaves its pending jobs to the runners its tests play.
    builtinRunner: flag(env, 'QUARRY_BUILTIN_RUNNER', !ephemeral),
    ssh,
    sshUrlPrefix: sshUrlPrefix(external, ssh?.port ?? null),
    pagesEnabled: flag(env, 'QUARRY_PAGES_ENABLED', true),
    // Names under localhost reach this machine without any DNS set up (RFC 6761).
    pagesDomain: hostName(env, 'QUARRY_PAGES_DOMAIN', 'pages.localhost'),
    pagesHttpsPort: env.QUARRY_PAGES_HTTPS_PORT ? integer(env, 'QUARRY_PAGES_HTTPS_PORT', 0, 0, 65535) : null,
    pagesDomainVerification: flag(env, 'QUARRY_PAGES_DOMAIN_VERIFICATION', true),
    webhookAttempts: integer(env, 'QUARRY_WEBHOOK_ATTEMPTS', 1, 1, 10),
    webhookAutoDisable: flag(env, 'QUARRY_WEBHOOK_AUTO_DISABLE', false),
    pagesDnsServers: Object.freeze(dnsServers(env, 'QUARRY_PAGES_DNS_SERVERS')),
    remoteImportEnabled: flag(env, 'QUARRY_REMOTE_IMPORT', false),
    // The platform's DecompressedArchiveSizeValidator: 10 GB.
    importMaxDecompressedBytes: integer(env, 'QUARRY_IMPORT_MAX_DECOMPRESSED_SIZE', 10 * 1024 ** 3, 1024, 1024 ** 5),
  });
}
