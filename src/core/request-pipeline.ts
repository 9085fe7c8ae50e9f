// Hooks every request passes through: request id and common headers, malformed input, parameter
// merging (query < body), authentication and the rate limit.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from './auth/actor.ts';
import { resolveActor } from './auth/resolve.ts';
import { payloadTooLarge } from './errors.ts';
import { THROTTLED_BODY, throttledHeaders } from './rate-limit.ts';

const REQUEST_ID = /^[\w.:-]{1,128}$/;

export function requestId(req: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID().replace(/-/g, '');
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

function hasNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 8 || value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return false;
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || hasNul(v, depth + 1));
}

function malformedUrl(url: string): boolean {
  if (/%00/i.test(url)) return true;
  try {
    decodeURIComponent(url.replace(/\+/g, ' '));
    return false;
  } catch {
    return true;
  }
}

const SECURITY_HEADERS = { 'x-frame-options': 'SAMEORIGIN', 'x-content-type-options': 'nosniff' };

/** The platform answers NUL bytes and broken percent-encoding before routing, in plain text. */
function badRequestText(reply: FastifyReply) {
  return reply.code(400).type('text/plain').send('Bad Request');
}

/**
 * Errors the router raises before any hook runs (an undecodable path parameter, an over-long one):
 * the same plain-text answers, with the headers every response carries.
 */
export function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  reply.headers({ 'x-request-id': req.id, ...SECURITY_HEADERS });
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(414).type('text/plain').send('Request-URI Too Long');
    return;
  }
  badRequestText(reply);
}

/**
 * Bytes the HTTP parser cannot read as a request (a body where none is framed, a broken request
 * line), headers over the size limit or a client too slow to send them are answered before any
 * route, in plain text with the status's words, as the front server answers them; then the
 * connection closes. (Fastify's own answer is JSON in a shape the API never writes.)
 */
export function clientErrors(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const text = STATUS_CODES[status] as string;
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${text}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${text}`);
  }
  socket.destroy(error);
}

/**
 * The body of a GET or HEAD is ignored, but read before the answer: a server that answers and
 * closes the connection while the client is still sending resets it, and the client loses the
 * answer. False when the body is over the limit (then it is not read further).
 */
function readIgnoredBody(req: FastifyRequest, limit: number): Promise<boolean> | boolean {
  const raw = req.raw;
  if ((req.method !== 'GET' && req.method !== 'HEAD') || raw.complete) return true;
  if (raw.headers['content-length'] === undefined && raw.headers['transfer-encoding'] === undefined) return true;
  return new Promise((resolve) => {
    let size = 0;
    const done = (within: boolean) => {
      raw.off('data', count);
      raw.off('end', ended);
      raw.off('error', ended);
      if (!within) raw.pause();
      resolve(within);
    };
    const count = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) done(false);
    };
    const ended = () => done(true);
    raw.on('data', count);
    raw.on('end', ended);
    raw.on('error', ended);
  });
}

function isApiV3(url: string): boolean {
  const path = url.split('?')[0].replace(/\/{2,}/g, '/');
  return path === '/api/v3' || path.startsWith('/api/v3/');
}

export function installRequestPipeline(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    reply.headers({ 'x-request-id': req.id, ...SECURITY_HEADERS });
    // Mostly there is no body, and the answer is at hand: no await then.
    const within = readIgnoredBody(req, app.deps.config.bodyLimit);
    if (!(within === true || (await within))) throw payloadTooLarge();
    if (malformedUrl(req.url)) return badRequestText(reply);
    if (isApiV3(req.url)) {
      return reply.code(410).send({ error: 'API V3 is no longer supported. Use API V4 instead.' });
    }
  });

  // The platform sends application/json without a charset parameter.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') reply.header('content-type', 'application/json');
    done(null, payload);
  });

  app.addHook('preValidation', async (req: FastifyRequest, reply) => {
    const query = isPlainObject(req.query) ? req.query : {};
    const body = isPlainObject(req.body) ? req.body : {};
    req.rawParams = { ...query, ...body };
    if (hasNul(req.rawParams)) return badRequestText(reply);
    // Parameters may come in the query string or the body of any write; the body wins.
    if (req.method !== 'GET' && req.method !== 'HEAD' && req.routeOptions.schema?.body) req.body = req.rawParams;

    if (req.routeOptions.config.auth === 'none') return;
    const cookies = (req as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies ?? {};
    let actor: Actor | null = null;
    let refused: unknown = null;
    try {
      // The catch-all 404 answers before any credential is looked at.
      if (!req.is404) actor = await resolveActor(app.deps, { method: req.method, headers: req.headers, params: req.rawParams, cookies }, req.routeOptions.config);
    } catch (error) {
      refused = error;
    }
    // Refused credentials count against the caller's address too, so that guessing tokens is throttled.
    if (app.throttle.limiting && /^\/+api\//.test(req.url)) {
      const name = actor ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api';
      const verdict = await app.throttle.hit(name, actor ? `user:${actor.user.id}` : `ip:${req.ip}`);
      if (verdict && !verdict.allowed) return reply.code(429).headers(throttledHeaders(name, verdict)).type('text/plain').send(THROTTLED_BODY);
    }
    if (refused) throw refused;
    req.actor = actor;
  });
}

export { requestId as genReqId };
