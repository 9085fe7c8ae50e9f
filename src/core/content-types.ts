// Request bodies the API accepts: JSON (the default when no Content-Type is given),
// form-urlencoded and multipart. Anything else is refused with 415, as the platform does.
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError, paramError } from './errors.ts';
import { parseQueryString } from './query-string.ts';

const BAD_JSON = 'message body does not match declared format';

/** JSON.parse that refuses prototype-polluting keys. */
function parseJson(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text, (key, value) => (key === '__proto__' ? undefined : value));
  } catch {
    throw paramError(BAD_JSON);
  }
}

export async function installContentParsers(app: FastifyInstance): Promise<void> {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, parseJson(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // Without a Content-Type the body is read as JSON; an unknown type is refused.
  app.addContentTypeParser('*', { parseAs: 'string' }, (req: FastifyRequest, body, done) => {
    const type = req.headers['content-type'];
    if (type !== undefined && type !== '') {
      done(new DomainError('param', `The provided content-type '${type}' is not supported.`, { status: 415 }), undefined);
      return;
    }
    try {
      done(null, parseJson(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  await app.register(formbody, { parser: (text) => parseQueryString(text) });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    limits: { fileSize: app.deps.config.bodyLimit, fields: 1000, files: 10 },
  });
}
