// Request bodies the API accepts: JSON (the default when no Content-Type is given),
// form-urlencoded and multipart. Anything else is refused with 415, as the platform does.
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, paramError, payloadTooLarge, unsupportedMediaType } from './errors.ts';
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
      done(unsupportedMediaType(type), undefined);
      return;
    }
    try {
      done(null, parseJson(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  await app.register(formbody, { parser: (text) => parseQueryString(text) });
  await app.register(multipart, { limits: { fileSize: app.deps.config.bodyLimit, fields: 1000, files: 10 } });
  app.addHook('preValidation', async (req) => {
    // Uploads to disk (artifacts) read their own parts as they arrive; everything else is buffered here.
    if (req.isMultipart() && !req.routeOptions.config.streamsMultipart) req.body = await readMultipart(req);
  });
}

/** Every part of a multipart body, files as Buffers, field names nested like a query (`a[]`, `a[b]`). */
async function readMultipart(req: FastifyRequest): Promise<Record<string, unknown>> {
  const entries: unknown[] = [];
  const names: string[] = [];
  try {
    for await (const part of req.parts()) {
      names.push(`${encodeURIComponent(part.fieldname)}=${entries.length}`);
      entries.push(part.type === 'file' ? await part.toBuffer() : part.value);
    }
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413) throw payloadTooLarge();
    throw badRequest();
  }
  // The nesting comes from the query-string parser; its leaves are indexes into `entries`.
  const restore = (v: unknown): unknown => {
    if (typeof v === 'string') return entries[Number(v)];
    if (Array.isArray(v)) return v.map(restore);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, restore(x)]));
    return v;
  };
  return restore(parseQueryString(names.join('&'))) as Record<string, unknown>;
}
