// GET requests to addresses that users give (a remote CI include; webhooks and integrations alike),
// with the platform's address protections (its UrlBlocker): the host name is resolved once, a name
// with any address on this machine or the local network is refused unless the instance allows
// local requests, and the connection goes to the address that was checked, with the URL's host in
// the Host header and as the TLS server name (whose certificate is verified for that name). A
// second answer of the name's DNS (rebinding) reaches nothing. Redirects are followed the same way,
// each hop resolved and checked.
import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import { type Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** A host name's addresses, in the resolver's order. */
export type Lookup = (hostname: string) => Promise<string[]>;

export interface OutboundOptions {
  /** The instance's allow_local_requests_from_web_hooks_and_services. */
  allowLocal: boolean;
  /** For the whole exchange, redirects included. */
  timeoutMs: number;
  /** A longer body fails with 'too_large'. */
  maxBytes: number;
  lookup?: Lookup;
}

export type OutboundFailure = 'invalid' | 'blocked' | 'unresolved' | 'timeout' | 'failed' | 'too_large';

export class OutboundError extends Error {
  readonly failure: OutboundFailure;
  constructor(failure: OutboundFailure, message: string = failure) {
    super(message);
    this.failure = failure;
  }
}

export interface OutboundResponse {
  status: number;
  body: Buffer;
}

/** A request beyond its URL: method, headers, a body (bytes, or a stream opened when sent), TLS checking. */
interface RequestSpec {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST';
  headers?: Record<string, string>;
  body?: Buffer | (() => Readable);
  /** Whether an https certificate must be valid (default true). */
  verifyTls?: boolean;
}

/** What a POST answers: its status, headers (as received, lower-case names) and body. */
export interface OutboundPostResponse extends OutboundResponse {
  headers: Record<string, string>;
}

/** How many redirects are followed (HTTParty's limit). */
const MAX_REDIRECTS = 5;

/** The system resolver (getaddrinfo: the hosts file, then DNS). */
export const systemLookup: Lookup = async (hostname) => (await dns.lookup(hostname, { all: true })).map((a) => a.address);

const ipv4 = (address: string) => address.split('.').map(Number);
const ownAddresses = () => Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address.toLowerCase()));

/** Whether an IPv6 address's first group (written in full, as resolvers write these) matches. */
const firstGroup = (address: string, pattern: RegExp) => pattern.test(address.split(':')[0]);

/**
 * The platform's checks in its order: the first that any address of a name fails refuses it.
 * 0.0.0.0/8 ("this network") is refused with the loopback addresses.
 */
const RULES: [string, (address: string, own: string[]) => boolean][] = [
  ['Requests to localhost are not allowed', (a, own) => a === '::' || a === '0.0.0.0' || own.includes(a)],
  ['Requests to loopback addresses are not allowed', (a) => (net.isIPv4(a) ? [127, 0].includes(ipv4(a)[0]) : a === '::1')],
  ['Requests to the local network are not allowed', (a) => {
    // fc00::/7 unique local, fec0::/10 site local.
    if (!net.isIPv4(a)) return firstGroup(a, /^(f[cd][0-9a-f]{2}|fe[c-f][0-9a-f])$/);
    const [x, y] = ipv4(a);
    return x === 10 || (x === 172 && y >= 16 && y < 32) || (x === 192 && y === 168);
  }],
  ['Requests to the link local network are not allowed', (a) => (net.isIPv4(a) ? a.startsWith('169.254.') : firstGroup(a, /^fe[89ab][0-9a-f]$/))],
  ['Requests to the shared address space are not allowed', (a) => net.isIPv4(a) && ipv4(a)[0] === 100 && ipv4(a)[1] >= 64 && ipv4(a)[1] < 128],
  ['Requests to the limited broadcast address are not allowed', (a) => a === '255.255.255.255'],
];

/** Why the platform refuses a name with these addresses when local requests are not allowed; null when it does not. */
export function blockedReason(addresses: readonly string[]): string | null {
  // An IPv4 address written as IPv6 is checked as itself.
  const plain = addresses.map((a) => a.toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''));
  const own = ownAddresses();
  return RULES.find(([, fails]) => plain.some((a) => fails(a, own)))?.[0] ?? null;
}

function parse(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundError('invalid');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new OutboundError('invalid');
  return parsed;
}

/** The address to connect to for a URL: its host's first address, once every address passed the check. */
async function checkedAddress(url: URL, options: OutboundOptions): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : await (options.lookup ?? systemLookup)(host);
  } catch {
    throw new OutboundError('unresolved');
  }
  if (addresses.length === 0) throw new OutboundError('unresolved');
  if (!options.allowLocal) {
    const reason = blockedReason(addresses);
    if (reason) throw new OutboundError('blocked', `URL '${url.href}' is blocked: ${reason}`);
  }
  return addresses[0];
}

/**
 * One exchange with the checked address of a URL: the request is sent to that address (so what
 * was checked is what is reached), and `consume` reads the answer; a timeout, a refusal or a
 * failure to consume throws the OutboundError `fail` was given (or 'failed').
 */
async function exchange<T>(
  url: URL,
  options: OutboundOptions,
  deadline: number,
  spec: RequestSpec,
  consume: (response: http.IncomingMessage, fail: (error: OutboundError) => void) => Promise<T>,
): Promise<T> {
  const address = await checkedAddress(url, options);
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const length = Buffer.isBuffer(spec.body) ? { 'content-length': String(spec.body.length) } : {};
  const request = (secure ? https : http).request({
    method: spec.method,
    host: address,
    port: url.port || (secure ? 443 : 80),
    path: `${url.pathname}${url.search}`,
    headers: { ...spec.headers, ...length, host: url.host },
    ...(secure && !net.isIP(host) ? { servername: host } : {}),
    ...(secure && spec.verifyTls === false ? { rejectUnauthorized: false } : {}),
    agent: false,
  });
  let failure = new OutboundError('failed');
  const fail = (error: OutboundError) => {
    failure = error;
    request.destroy();
  };
  const timer = setTimeout(() => fail(new OutboundError('timeout')), Math.max(0, deadline - Date.now()));
  try {
    const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    if (typeof spec.body === 'function') {
      const body = spec.body();
      body.once('error', () => fail(new OutboundError('failed')));
      body.pipe(request);
    } else {
      request.end(spec.body);
    }
    return await consume(await answered, fail);
  } catch {
    throw failure;
  } finally {
    clearTimeout(timer);
  }
}

/** An exchange whose whole answer is read, up to options.maxBytes ('too_large' beyond). */
function requestOnce(url: URL, options: OutboundOptions, deadline: number, spec: RequestSpec = { method: 'GET' }): Promise<OutboundPostResponse & { location?: string }> {
  return exchange(url, options, deadline, spec, async (response, fail) => {
    const tooLarge = () => {
      fail(new OutboundError('too_large'));
      throw new Error('too large');
    };
    if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > options.maxBytes) tooLarge();
      chunks.push(chunk);
    }
    if (!response.complete) throw new Error('incomplete');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    return { status: response.statusCode ?? 0, body: Buffer.concat(chunks), headers, location: response.headers.location };
  });
}

/** GETs a URL given by a user; throws OutboundError. A status of 400 and above is the caller's to judge. */
export async function checkedGet(url: string, options: OutboundOptions): Promise<OutboundResponse> {
  const deadline = Date.now() + options.timeoutMs;
  let target = parse(url);
  for (let redirects = 0; ; redirects++) {
    const response = await requestOnce(target, options, deadline);
    const redirected = response.status >= 300 && response.status < 400 && response.location !== undefined;
    if (!redirected) return { status: response.status, body: response.body };
    if (redirects === MAX_REDIRECTS) throw new OutboundError('failed');
    target = parse(new URL(response.location as string, target).href);
  }
}

// ---- Requests with a body, and streamed answers ------------------------------------------------

export interface StreamRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST';
  headers?: Record<string, string>;
  /** The body, opened when the request is sent (a file read from disk). */
  body?: () => Readable;
  /** Where a 2xx answer's body goes (GET); at most options.maxBytes of it, else 'too_large'. */
  sink?: Writable;
}

export interface StreamResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
}

/** An exchange whose 2xx answer's body goes to the sink (at most options.maxBytes); other answers' are read and dropped. */
function sendOnce(url: URL, request: StreamRequest, options: OutboundOptions, deadline: number): Promise<StreamResponse> {
  return exchange(url, options, deadline, { method: request.method, headers: request.headers, body: request.body }, async (response, fail) => {
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300 && request.sink) {
      if (Number(response.headers['content-length'] ?? 0) > options.maxBytes) {
        fail(new OutboundError('too_large'));
        throw new Error('too large');
      }
      let size = 0;
      const limit = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          if (size > options.maxBytes) {
            const tooLarge = new OutboundError('too_large');
            fail(tooLarge);
            done(tooLarge);
            return;
          }
          done(null, chunk);
        },
      });
      await pipeline(response, limit, request.sink);
      if (!response.complete) throw new Error('incomplete');
    } else {
      // Read and dropped, within a bound.
      let size = 0;
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > 64 * 1024) break;
      }
      response.destroy();
    }
    return { status, headers: response.headers };
  });
}

/**
 * Sends a request to a URL given by a user, with the address checks of checkedGet. HEAD and GET
 * follow redirects (each hop checked); a request with a body is sent once, to the URL given.
 * Throws OutboundError; a status of 400 and above is the caller's to judge.
 */
export async function checkedRequest(url: string, request: StreamRequest, options: OutboundOptions): Promise<StreamResponse> {
  const deadline = Date.now() + options.timeoutMs;
  let target = parse(url);
  for (let redirects = 0; ; redirects++) {
    const response = await sendOnce(target, request, options, deadline);
    const location = response.headers.location;
    const redirected = response.status >= 300 && response.status < 400 && location !== undefined && request.body === undefined;
    if (!redirected) return response;
    if (redirects === MAX_REDIRECTS) throw new OutboundError('failed');
    target = parse(new URL(location, target).href);
  }
}

/**
 * POSTs a body to a URL given by a user (a webhook's delivery), with the same address checks and
 * one connection to the checked address; redirects are not followed (the answer is the caller's to
 * judge). Throws OutboundError.
 */
export async function checkedPost(url: string, body: Buffer, headers: Record<string, string>, options: OutboundOptions & { verifyTls?: boolean }): Promise<OutboundPostResponse> {
  const response = await requestOnce(parse(url), options, Date.now() + options.timeoutMs, { method: 'POST', headers, body, verifyTls: options.verifyTls });
  return { status: response.status, body: response.body, headers: response.headers };
}
