// The addresses where monitoring tools post alerts, beside the project's pages (not under the API):
//   POST /<full path>/-/alerts/notify/<name>/<endpoint identifier>.json  (an integration's own)
//   POST /<full path>/-/alerts/notify.json                               (the older address: the
//        project's oldest active integration answers it)
// with `Authorization: Bearer <token>`. No user signs in; the token is the integration's. Error
// answers have empty bodies, as the platform's `head`; a generic payload is answered 200 with the
// alert it created or touched, an Alertmanager notification 201 with an empty body. An unknown
// project is 404.
//
// The body is read here, whatever its declared type, up to the instance's body limit; the payload
// rules (1 MB, 100 levels, a JSON object) are the service's. Anything that goes wrong before the
// service answers (a body over the instance's limit, a broken upload) is a 400 with no body.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findProjectByFullPath } from '../../core/access/loaders.ts';
import { serviceContext } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import { fieldsOf } from '../../core/params.ts';
import { NoContent } from '../../core/schema.ts';
import { MAX_ANCESTORS } from '../groups/groups.validation.ts';
import { NotifiedAlertEntity } from './alert-management.schemas.ts';
import { bearerToken, receiveAlerts } from './alert-notify.service.ts';

/** Groups nest up to MAX_ANCESTORS + 1 deep, and the project comes last. */
const MAX_SEGMENTS = MAX_ANCESTORS + 2;
/** The platform's route accepts letters and digits only as an endpoint identifier. */
const ENDPOINT_IDENTIFIER = /^[A-Za-z0-9]+$/;

/** The project's full path from the route's segments. */
function fullPathOf(req: FastifyRequest): string {
  const params = fieldsOf(req.params);
  const segments: string[] = [];
  for (let i = 0; params[`s${i}`] !== undefined; i++) segments.push(String(params[`s${i}`]));
  return segments.join('/');
}

export const alertNotifyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  // Every body is read as bytes here, whatever its type: the service reads the payload.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: deps.config.bodyLimit }, (_req, body, done) => done(null, body));
  app.setErrorHandler((error, req, reply) => {
    const status = error instanceof DomainError ? error.status : (error as { statusCode?: number }).statusCode;
    if (status !== undefined && status >= 400 && status < 500) return reply.code(status === 404 || status === 401 || status === 403 ? status : 400).send();
    req.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send();
  });

  const config = { auth: 'none' } as const;
  const schema = { response: { 200: Type.Array(NotifiedAlertEntity), 201: NoContent } };

  async function notify(req: FastifyRequest, reply: FastifyReply, endpointIdentifier: string | null) {
    const found = await findProjectByFullPath(deps.db, fullPathOf(req));
    if (!found) return reply.code(404).send();
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const outcome = await receiveAlerts(serviceContext(req), found.row, endpointIdentifier, bearerToken(req.headers.authorization), body);
    if (outcome.status === 200) return reply.code(200).send(outcome.alerts);
    return reply.code(outcome.status).send();
  }

  for (let depth = 2; depth <= MAX_SEGMENTS; depth++) {
    const base = Array.from({ length: depth }, (_, i) => `/:s${i}`).join('');
    app.post(`${base}/-/alerts/notify.json`, { schema, config }, (req, reply) => notify(req, reply, null));
    app.post(`${base}/-/alerts/notify/:name/:endpoint`, { schema, config }, (req, reply) => {
      const { endpoint } = fieldsOf(req.params);
      const identifier = String(endpoint).endsWith('.json') ? String(endpoint).slice(0, -'.json'.length) : '';
      if (!ENDPOINT_IDENTIFIER.test(identifier)) return reply.callNotFound();
      return notify(req, reply, identifier);
    });
  }
};
