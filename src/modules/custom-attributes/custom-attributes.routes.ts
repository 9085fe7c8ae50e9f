// GET/PUT/DELETE <subject>/custom_attributes[/:key], administrators only, for users, groups and
// projects alike. As on the platform, the subject is looked up before the caller is checked: the
// subject's own refusal (404) first, then 403 for anyone but an administrator (writes by anonymous
// callers are 401 before either, through the route's config).
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, forbidden } from '../../core/errors.ts';
import { Params } from '../../core/params.ts';
import { findCustomAttribute, listCustomAttributes } from './custom-attributes.finder.ts';
import { SetCustomAttributeBody } from './custom-attributes.schemas.ts';
import { deleteCustomAttribute, setCustomAttribute } from './custom-attributes.service.ts';
import type { CustomAttributeSubject } from './custom-attributes.tables.ts';

export interface CustomAttributeRouteOptions {
  subject: CustomAttributeSubject;
  /** The subject's own route, e.g. '/projects/:id'. */
  path: string;
  /** The schema of its `:id`. */
  id: TSchema;
  /** The id of the subject the request names; throws the subject's refusal when there is none. */
  load: (req: FastifyRequest) => Promise<number>;
  /** Route configs of the reads and of the writes (the writes need a signed-in caller). */
  readConfig?: FastifyContextConfig;
  writeConfig?: FastifyContextConfig;
}

export function customAttributeRoutes(api: FastifyInstance, options: CustomAttributeRouteOptions): void {
  const { deps } = api;
  const { subject } = options;
  const base = `${options.path}/custom_attributes`;
  const read = { config: options.readConfig ?? {} };
  const write = { config: options.writeConfig ?? { auth: 'required' } };
  const byId = Params({ id: options.id });
  const byKey = Params({ id: options.id, key: Type.String() });
  const keyOf = (req: FastifyRequest) => (req.params as { key: string }).key;

  async function ownerFor(req: FastifyRequest): Promise<number> {
    const id = await options.load(req);
    if (!req.actor?.isAdmin) throw forbidden();
    return id;
  }

  api.get(base, { schema: { params: byId }, ...read }, async (req) => listCustomAttributes(deps.db, subject, await ownerFor(req)));

  api.get(`${base}/:key`, { schema: { params: byKey }, ...read }, async (req) => {
    const attribute = await findCustomAttribute(deps.db, subject, await ownerFor(req), keyOf(req));
    // A record lookup that fails answers the platform's generic "404 Not found" (lower-case f).
    if (!attribute) throw apiError(404, '404 Not found');
    return attribute;
  });

  api.put(`${base}/:key`, { schema: { params: byKey, body: SetCustomAttributeBody }, ...write }, async (req) => {
    return setCustomAttribute(deps, subject, await ownerFor(req), keyOf(req), (req.body as SetCustomAttributeBody).value);
  });

  api.delete(`${base}/:key`, { schema: { params: byKey }, ...write }, async (req, reply) => {
    await deleteCustomAttribute(deps, subject, await ownerFor(req), keyOf(req));
    return reply.code(204).send();
  });
}
