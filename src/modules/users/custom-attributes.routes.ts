// Custom attributes of users: GET/PUT/DELETE /users/:id/custom_attributes[/:key], administrators only.
// As on the platform, the user is looked up before the ability is checked, so a missing user is
// 404 for everyone; reads by anyone else are 403 and writes by anonymous callers 401.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { DomainError, forbidden, notFound } from '../../core/errors.ts';
import type { UserRow } from '../../db/schema.ts';
import { findCustomAttribute, listCustomAttributes } from './custom-attributes.finder.ts';
import { CustomAttributeParams, SetCustomAttributeBody } from './custom-attributes.schemas.ts';
import { deleteCustomAttribute, setCustomAttribute } from './custom-attributes.service.ts';
import { findUserById } from './users.finder.ts';
import { USERS_ANYONE, USERS_SIGNED_IN } from './users.routes.ts';
import { USER_ID_ROUTE, UserIdParams } from './users.schemas.ts';

export const userCustomAttributeRoutes: FastifyPluginAsync = async (api) => {
  const deps = api.deps;

  async function userFor(req: FastifyRequest): Promise<UserRow> {
    const user = await findUserById(deps.db, (req.params as { id: number }).id);
    if (!user) throw notFound();
    if (!req.actor?.isAdmin) throw forbidden();
    return user;
  }

  const base = `/users/${USER_ID_ROUTE}/custom_attributes`;

  api.get(base, { schema: { params: UserIdParams }, config: USERS_ANYONE }, async (req) => {
    const user = await userFor(req);
    return listCustomAttributes(deps.db, user.id);
  });

  api.get(`${base}/:key`, { schema: { params: CustomAttributeParams }, config: USERS_ANYONE }, async (req) => {
    const user = await userFor(req);
    const attribute = await findCustomAttribute(deps.db, user.id, (req.params as CustomAttributeParams).key);
    // A record lookup that fails answers the platform's generic "404 Not found" (lower-case f).
    if (!attribute) throw new DomainError('not_found', '404 Not found');
    return attribute;
  });

  api.put(`${base}/:key`, { schema: { params: CustomAttributeParams, body: SetCustomAttributeBody }, config: USERS_SIGNED_IN }, async (req) => {
    const user = await userFor(req);
    return setCustomAttribute(deps, user.id, (req.params as CustomAttributeParams).key, (req.body as SetCustomAttributeBody).value);
  });

  api.delete(`${base}/:key`, { schema: { params: CustomAttributeParams }, config: USERS_SIGNED_IN }, async (req, reply) => {
    const user = await userFor(req);
    await deleteCustomAttribute(deps, user.id, (req.params as CustomAttributeParams).key);
    return reply.code(204).send();
  });
};
