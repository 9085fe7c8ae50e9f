// GET/PUT/DELETE <subject>/custom_attributes[/:key], administrators only, for users, groups and
// projects alike. As on the platform, the subject is looked up before the caller is checked: the
// subject's own refusal (404) first, then 403 for anyone but an administrator (writes by anonymous
// callers are 401 before either, through the route's config).
import { type TInteger, type TString, Type } from '@sinclair/typebox';
import type { FastifyContextConfig, FastifyRequest } from 'fastify';
import { serviceContext } from '../../core/context.ts';
import type { Api } from '../../core/deps.ts';
import { apiError, forbidden } from '../../core/errors.ts';
import { Params } from '../../core/params.ts';
import type { CustomAttributeSubject } from '../../domain/custom-attribute-tables.ts';
import { NoContent } from '../../core/schema.ts';
import { findCustomAttribute, listCustomAttributes } from './custom-attributes.finder.ts';
import { CustomAttributeEntity, SetCustomAttributeBody } from './custom-attributes.schemas.ts';
import { deleteCustomAttribute, setCustomAttribute } from './custom-attributes.service.ts';

export interface CustomAttributeRouteOptions {
  subject: CustomAttributeSubject;
  /** The subject's own route, e.g. '/projects/:id'. */
  path: string;
  /** The schema of its `:id`: a number, or a number or full path. */
  id: TInteger | TString;
  /** The id of the subject `:id` names; throws the subject's refusal when there is none. */
  load: (req: FastifyRequest, id: number | string) => Promise<number>;
  /** Route configs of the reads and of the writes (the writes need a signed-in caller). */
  readConfig?: FastifyContextConfig;
  writeConfig?: FastifyContextConfig;
}

export function customAttributeRoutes(api: Api, options: CustomAttributeRouteOptions): void {
  const { deps } = api;
  const { subject } = options;
  const base = `${options.path}/custom_attributes`;
  const read = { config: options.readConfig ?? { auth: 'optional' } };
  const write = { config: options.writeConfig ?? { auth: 'required' } };
  const byId = Params({ id: options.id });
  const byKey = Params({ id: options.id, key: Type.String() });

  async function ownerFor(req: FastifyRequest, id: number | string): Promise<number> {
    const owner = await options.load(req, id);
    if (!req.actor?.isAdmin) throw forbidden();
    return owner;
  }

  api.get(base, { schema: { params: byId, response: { 200: Type.Array(CustomAttributeEntity) } }, ...read }, async (req) =>
    listCustomAttributes(deps.db, subject, await ownerFor(req, req.params.id)),
  );

  api.get(`${base}/:key`, { schema: { params: byKey, response: { 200: CustomAttributeEntity } }, ...read }, async (req) => {
    const attribute = await findCustomAttribute(deps.db, subject, await ownerFor(req, req.params.id), req.params.key);
    // A record lookup that fails answers the platform's generic "404 Not found" (lower-case f).
    if (!attribute) throw apiError(404, '404 Not found');
    return attribute;
  });

  api.put(`${base}/:key`, { schema: { params: byKey, body: SetCustomAttributeBody, response: { 200: CustomAttributeEntity } }, ...write }, async (req) => {
    return setCustomAttribute(serviceContext(req), subject, await ownerFor(req, req.params.id), req.params.key, req.body.value);
  });

  api.delete(`${base}/:key`, { schema: { params: byKey, response: { 204: NoContent } }, ...write }, async (req, reply) => {
    await deleteCustomAttribute(serviceContext(req), subject, await ownerFor(req, req.params.id), req.params.key);
    return reply.code(204).send();
  });
}
