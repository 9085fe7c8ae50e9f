// The one place that writes error bodies, in the platform's shapes:
//   parameter failures and unknown routes → {"error": "..."}
//   application errors → {"message": "..."} or {"message": {field: [...]}}
//   token failures → {"error": "invalid_token" | "insufficient_scope", "error_description": ...}
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from './errors.ts';

function bodyOf(error: DomainError): Record<string, unknown> {
  if (error.kind === 'param') return { error: error.extra?.messages ?? error.message };
  if (error.kind === 'invalid_token' || error.kind === 'insufficient_scope') {
    return { error: error.kind, error_description: error.message, ...(error.extra ?? {}) };
  }
  return { message: error.fields ?? error.message };
}

/**
 * Error bodies are written as text so that no route's response schema (made for its successes)
 * reshapes or rejects them.
 */
function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type('application/json').send(JSON.stringify(body));
}

function sendDomainError(reply: FastifyReply, error: DomainError) {
  if (error.kind === 'invalid_token') {
    reply.header('www-authenticate', `Bearer realm="Protected by OAuth 2.0", error="invalid_token", error_description="${error.message}"`);
  }
  if (error.kind === 'too_many_requests' && !reply.hasHeader('retry-after')) reply.header('retry-after', '60');
  return sendJson(reply, error.status, bodyOf(error));
}

/** Fastify's own errors (body parsing, size limits, media types) mapped to the platform's answers. */
function fromFastify(error: FastifyError, request: FastifyRequest): DomainError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError('payload_too_large', '413 Request Entity Too Large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new DomainError('param', `The provided content-type '${request.headers['content-type'] ?? ''}' is not supported.`, { status: 415 });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new DomainError('bad_request', '400 Bad request - invalid Content-Length');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new DomainError('param', 'message body does not match declared format');
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON|body/i.test(error.message))) {
    return new DomainError('param', 'message body does not match declared format');
  }
  if (error.code?.startsWith('FST_') && error.statusCode && error.statusCode < 500) {
    return new DomainError('bad_request', `400 Bad request - ${error.message}`, { status: error.statusCode });
  }
  return null;
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof DomainError) return sendDomainError(reply, error);
    const mapped = fromFastify(error, request);
    if (mapped) return sendDomainError(reply, mapped);
    request.log.error({ err: error }, 'unhandled error');
    return sendJson(reply, 500, { message: '500 Internal Server Error' });
  });

  app.setNotFoundHandler((_request, reply) => sendJson(reply, 404, { error: '404 Not Found' }));
}
