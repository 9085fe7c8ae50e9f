// Hooks every request passes through: request id and common headers, malformed input, parameter
// merging (query < body), authentication and the rate limit.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resolveActor } from './auth/resolve.ts';
import { createRateLimiter } from './rate-limit.ts';

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

/** The platform answers NUL bytes and broken percent-encoding before routing, in plain text. */
function badRequestText(reply: FastifyReply) {
  return reply.code(400).type('text/plain').send('Bad Request');
}

export function installRequestPipeline(app: FastifyInstance): void {
  const { config } = app.deps;
  const limiter = createRateLimiter(config.rateLimitRequests, config.rateLimitPeriodSeconds, app.deps.now);

  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    reply.header('x-frame-options', 'SAMEORIGIN');
    reply.header('x-content-type-options', 'nosniff');
    if (malformedUrl(req.url)) return badRequestText(reply);
    if (req.url.startsWith('/api/v3/') || req.url === '/api/v3') {
      return reply.code(410).send({ error: 'API V3 is no longer supported. Use API V4 instead.' });
    }
  });

  // The platform sends application/json without a charset parameter.
  app.addHook('onSend', async (_req, reply, payload) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') reply.header('content-type', 'application/json');
    return payload;
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
    req.actor = await resolveActor(app.deps, { method: req.method, headers: req.headers, params: req.rawParams, cookies }, req.routeOptions.config);

    if (limiter && req.url.startsWith('/api/')) {
      const verdict = limiter.hit(req.actor ? `user:${req.actor.user.id}` : `ip:${req.ip}`);
      if (!verdict.allowed) {
        reply.headers({
          'ratelimit-name': req.actor ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api',
          'ratelimit-limit': String(verdict.limitPerMinute),
          'ratelimit-observed': String(verdict.observed),
          'ratelimit-remaining': '0',
          'ratelimit-reset': String(verdict.resetAt),
          'ratelimit-resettime': new Date(verdict.resetAt * 1000).toUTCString(),
          'retry-after': String(verdict.retryAfter),
        });
        return reply.code(429).type('text/plain').send('Retry later\n');
      }
    }
  });
}

export { requestId as genReqId };
