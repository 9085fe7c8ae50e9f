// The one place that writes error bodies, in the platform's shapes:
//   parameter failures and unknown routes → {"error": "..."}
//   application errors → {"message": "..."} or {"message": {field: [...]}}
//   token failures → {"error": "invalid_token" | "insufficient_scope", "error_description": ...}
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BAD_BODY, DomainError, apiError, badRequest, paramError, payloadTooLarge, unsupportedMediaType } from './errors.ts';

function bodyOf(error: DomainError): Record<string, unknown> {
  const { shape } = error;
  if (shape === 'error') return { error: error.messages ?? error.message };
  if (shape === 'message') return { message: error.fields ?? error.message, ...error.extra };
  const body = { error: shape.oauth, error_description: error.message };
  return shape.scope === undefined ? body : { ...body, scope: shape.scope };
}

/**
 * Error bodies are written as text so that no route's response schema (made for its successes)
 * reshapes or rejects them.
 */
function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type('application/json').send(JSON.stringify(body));
}

function sendDomainError(reply: FastifyReply, error: DomainError) {
  reply.headers(error.headers);
  if (error.status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '60');
  return sendJson(reply, error.status, bodyOf(error));
}

/** Fastify's own errors (body parsing, size limits, media types) mapped to the platform's answers. */
function fromFastify(error: FastifyError, request: FastifyRequest): DomainError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request.headers['content-type'] ?? '');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('invalid Content-Length');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return paramError(BAD_BODY);
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON|body/i.test(error.message))) return paramError(BAD_BODY);
  if (error.code?.startsWith('FST_') && error.statusCode && error.statusCode < 500) return apiError(error.statusCode, `400 Bad request - ${error.message}`);
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
