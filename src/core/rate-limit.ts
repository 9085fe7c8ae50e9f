// Request throttles and the ban of addresses that fail to authenticate, as the platform's
// Rack::Attack has them: fixed-window counters per client (a user, or an address), and a ban
// (Allow2Ban) once an address has failed to authenticate too often within a window.
//
// Counters live in Redis when REDIS_URL is set, so that every process and node counts together;
// otherwise in this process's memory, so each process enforces the limit for the traffic it sees.
// A Redis that does not answer must not take the API down: while it fails, counting falls back to
// this process's memory (limits hold per process) and a warning is logged, at most once a minute.
import type { Redis } from 'ioredis';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';

export interface Verdict {
  allowed: boolean;
  observed: number;
  /** The quota expressed per 60 s window, rounded up, as RateLimit-Limit reports it. */
  limitPerMinute: number;
  /** Unix seconds at which the window resets. */
  resetAt: number;
  retryAfter: number;
}

/** Where counts are kept: keys expire on their own. */
export interface CounterStore {
  /** Adds one to key (created with the time to live when new); the count after. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** Sets key for ttlMs. */
  mark(key: string, ttlMs: number): Promise<void>;
  /** Milliseconds key has left; 0 when it is not set. */
  remainingMs(key: string): Promise<number>;
  close(): Promise<void>;
}

/** Counters in this process's memory; expired keys are swept as new ones come. */
export function memoryStore(now: () => number = Date.now): CounterStore {
  const entries = new Map<string, { count: number; expiresAt: number }>();
  let nextSweep = 0;
  const live = (key: string, t: number) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt > t) return entry;
    if (entry) entries.delete(key);
    return undefined;
  };
  const sweep = (t: number) => {
    if (t < nextSweep) return;
    nextSweep = t + 10_000;
    for (const [key, entry] of entries) if (entry.expiresAt <= t) entries.delete(key);
  };
  return {
    async increment(key, ttlMs) {
      const t = now();
      sweep(t);
      const entry = live(key, t) ?? { count: 0, expiresAt: t + ttlMs };
      entry.count += 1;
      entries.set(key, entry);
      return entry.count;
    },
    async mark(key, ttlMs) {
      const t = now();
      sweep(t);
      entries.set(key, { count: 1, expiresAt: t + ttlMs });
    },
    async remainingMs(key) {
      const t = now();
      const entry = live(key, t);
      return entry ? entry.expiresAt - t : 0;
    },
    async close() {
      entries.clear();
    },
  };
}

/** INCR and PEXPIRE of a new key in one step, so that no key is left without its expiry. */
const INCREMENT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/**
 * Counters in Redis. Commands fail at once while the connection is down (no offline queue) and
 * after a short timeout otherwise, so that a request never waits long on Redis. The client is
 * loaded and connected on first use, so that a process without Redis never loads it.
 */
export function redisStore(url: string, prefix: () => Promise<string>): CounterStore {
  let redis: Redis | null = null;
  let connecting: Promise<void> | null = null;
  let closed = false;
  const open = async () => {
    const { Redis } = await import('ioredis');
    if (closed) throw new Error('the Redis client is closed');
    const client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      connectTimeout: 1000,
      // Keeps trying to reconnect, at most every 2 s.
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    // Errors reach the callers of commands; the client's own events would only repeat them.
    client.on('error', () => {});
    redis = client;
    await client.connect();
  };
  const ready = async (): Promise<Redis> => {
    if (!redis && !connecting) connecting = open().finally(() => (connecting = null));
    if (connecting) await connecting;
    const status: string = redis?.status ?? 'closed';
    if (!redis || status !== 'ready') throw new Error(`Redis is not connected (${status})`);
    return redis;
  };
  return {
    async increment(key, ttlMs) {
      const client = await ready();
      return Number(await client.eval(INCREMENT, 1, `${await prefix()}${key}`, ttlMs));
    },
    async mark(key, ttlMs) {
      const client = await ready();
      await client.set(`${await prefix()}${key}`, '1', 'PX', ttlMs);
    },
    async remainingMs(key) {
      const client = await ready();
      const ms = await client.pttl(`${await prefix()}${key}`);
      return ms > 0 ? ms : 0;
    },
    async close() {
      closed = true;
      redis?.disconnect();
    },
  };
}

export interface ThrottleLog {
  warn(obj: object, msg: string): void;
}

/** Uses primary, and fallback while primary fails (logged at most once a minute). */
export function failingOver(primary: CounterStore, fallback: CounterStore, log: ThrottleLog, now: () => number = Date.now): CounterStore {
  let lastWarning = -Infinity;
  const attempt = async <T>(run: (store: CounterStore) => Promise<T>): Promise<T> => {
    try {
      return await run(primary);
    } catch (error) {
      const t = now();
      if (t - lastWarning >= 60_000) {
        lastWarning = t;
        log.warn({ err: error }, 'Redis is unavailable: rate limits and the authentication ban are counted in this process until it answers');
      }
      return run(fallback);
    }
  };
  return {
    increment: (key, ttlMs) => attempt((s) => s.increment(key, ttlMs)),
    mark: (key, ttlMs) => attempt((s) => s.mark(key, ttlMs)),
    remainingMs: (key) => attempt((s) => s.remainingMs(key)),
    async close() {
      await Promise.all([primary.close(), fallback.close()]);
    },
  };
}

export interface Throttle {
  /** False when requests are not limited (hit then always answers null). */
  readonly limiting: boolean;
  /**
   * Counts a request of `who` (`user:<id>`, `ip:<address>`) against the throttle `name`; null when
   * requests are not limited, else the verdict.
   */
  hit(name: string, who: string): Promise<Verdict | null>;
  /**
   * Counts a request against one of the platform's application rate limits (`check_rate_limit!`,
   * e.g. `project_export` at 6 per minute per user): true when `who` is past `limit` requests in the
   * current window. These hold whatever the request throttles are set to; a limit of 0 is none.
   */
  overLimit(name: string, who: string, limit: number, periodSeconds: number): Promise<boolean>;
  /** Records a failed authentication from an address; bans it once it has failed too often. */
  failedAuthentication(ip: string): Promise<void>;
  /** Seconds left of the address's ban; 0 when it is not banned. */
  bannedFor(ip: string): Promise<number>;
  close(): Promise<void>;
}

export interface ThrottleOptions {
  config: Pick<Config, 'rateLimitRequests' | 'rateLimitPeriodSeconds' | 'redisUrl' | 'authBanMaxFailures' | 'authBanFindSeconds' | 'authBanSeconds'>;
  /** The clock that places requests in windows. */
  now: () => Date;
  log: ThrottleLog;
  /** The database, whose instance id prefixes the keys in Redis (instances may share one Redis). */
  db: Kysely<DB>;
}

/** `quarry:<instance id>:`, read once. */
function instancePrefix(db: Kysely<DB>): () => Promise<string> {
  let prefix: string | null = null;
  return async () => {
    if (prefix) return prefix;
    const row = await db.selectFrom('instance_identity').select('instance_id').where('id', '=', 1).executeTakeFirst();
    const value = `quarry:${row?.instance_id ?? 'instance'}:`;
    if (row) prefix = value;
    return value;
  };
}

export function createThrottle({ config, now, log, db }: ThrottleOptions): Throttle {
  const memory = memoryStore(() => now().getTime());
  const store = config.redisUrl ? failingOver(redisStore(config.redisUrl, instancePrefix(db)), memory, log) : memory;
  const limit = config.rateLimitRequests;
  const periodMs = config.rateLimitPeriodSeconds * 1000;
  const findMs = config.authBanFindSeconds * 1000;
  const banMs = config.authBanSeconds * 1000;
  return {
    limiting: limit > 0,
    async hit(name, who) {
      if (limit <= 0) return null;
      const t = now().getTime();
      const start = t - (t % periodMs);
      // The window is in the key, so that every process and node counts the same window.
      const observed = await store.increment(`throttle:${name}:${start}:${who}`, start + periodMs - t + 1000);
      const resetAt = Math.ceil((start + periodMs) / 1000);
      return {
        allowed: observed <= limit,
        observed,
        limitPerMinute: Math.ceil((limit * 60) / config.rateLimitPeriodSeconds),
        resetAt,
        retryAfter: Math.max(1, resetAt - Math.floor(t / 1000)),
      };
    },
    async overLimit(name, who, threshold, periodSeconds) {
      if (threshold <= 0) return false;
      const t = now().getTime();
      const windowMs = periodSeconds * 1000;
      const start = t - (t % windowMs);
      return (await store.increment(`limit:${name}:${start}:${who}`, start + windowMs - t + 1000)) > threshold;
    },
    async failedAuthentication(ip) {
      if (config.authBanMaxFailures <= 0) return;
      const t = now().getTime();
      const start = t - (t % findMs);
      const failures = await store.increment(`authfail:${start}:${ip}`, start + findMs - t + 1000);
      if (failures >= config.authBanMaxFailures) await store.mark(`authban:${ip}`, banMs);
    },
    async bannedFor(ip) {
      if (config.authBanMaxFailures <= 0) return 0;
      return Math.ceil((await store.remainingMs(`authban:${ip}`)) / 1000);
    },
    close: () => store.close(),
  };
}

/** The platform's answer to a throttled request: 429 `Retry later` with the RateLimit-* headers. */
export function throttledHeaders(name: string, verdict: Verdict): Record<string, string> {
  return {
    'ratelimit-name': name,
    'ratelimit-limit': String(verdict.limitPerMinute),
    'ratelimit-observed': String(verdict.observed),
    'ratelimit-remaining': '0',
    'ratelimit-reset': String(verdict.resetAt),
    'ratelimit-resettime': new Date(verdict.resetAt * 1000).toUTCString(),
    'retry-after': String(verdict.retryAfter),
  };
}

export const THROTTLED_BODY = 'Retry later\n';

/**
 * Rack::Attack's answer to an address it has banned (403, text): every route that checks a password
 * or git credentials refuses a banned address with it, before reading what it sent.
 */
export const BANNED_BODY = 'Forbidden\n';
