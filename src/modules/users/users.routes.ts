// Users: spec Part 2 §4.2 (list, show, create, modify, delete, identities), block/unblock and
// custom attributes.
import type { FastifyPluginAsync } from 'fastify';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { paginate, paginateWithKeyset } from '../../core/pagination.ts';
import type { UserRow } from '../../db/schema.ts';
import { loadCustomAttributes } from '../custom-attributes/custom-attributes.finder.ts';
import { customAttributeRoutes } from '../custom-attributes/custom-attributes.routes.ts';
import { findUserById, findUsers, loadIdentities, searchRank } from './users.finder.ts';
import { type UserView, presentUser, presentUserAdmin, presentUserBasic, presentUserSelf } from './users.presenter.ts';
import {
  CreateUserBody,
  DeleteUserBody,
  IdentityParams,
  ListUsersQuery,
  ShowUserQuery,
  USER_ID_ROUTE,
  UpdateUserBody,
  UserIdParams,
} from './users.schemas.ts';
import { blockUser, createUser, deleteIdentity, deleteUser, unblockUser, updateUser } from './users.service.ts';

const KEYSET_ORDERS = new Set(['id', 'name', 'username']);

// read_user is registered on every users route but grants reads only; refusals name it on writes too.
const USERS_ANYONE = { scopes: ['read_user'] } as const;
const USERS_SIGNED_IN = { auth: 'required', scopes: ['read_user'] } as const;

export const userRoutes: FastifyPluginAsync = async (api) => {
  const deps = api.deps;
  const { db } = deps;

  /** Everything an administrator's form needs for these rows, in one query per kind. */
  async function adminView(rows: UserRow[], withCustomAttributes: boolean): Promise<UserView> {
    const ids = rows.map((r) => r.id);
    const [identities, customAttributes] = await Promise.all([
      loadIdentities(db, ids),
      withCustomAttributes ? loadCustomAttributes(db, 'user', ids) : Promise.resolve(undefined),
    ]);
    return { baseUrl: deps.config.externalUrl, identities, customAttributes };
  }

  async function presentAdmin(user: UserRow) {
    return presentUserAdmin(user, await adminView([user], false));
  }

  api.get('/users', { schema: { querystring: ListUsersQuery }, config: USERS_ANYONE }, async (req, reply) => {
    const q = req.query as ListUsersQuery;
    const admin = req.actor?.isAdmin ?? false;
    // These filters need an administrator (401 / 403) before anything else is looked at.
    if (q.external || (q.extern_uid && q.provider)) requireAdmin(req);
    if (!req.actor && !q.username) throw forbidden('Not authorized to access /api/v4/users');

    const query = findUsers(db, q, admin);
    const orderBy = (admin && q.order_by) || 'id';
    const sort = (admin && q.sort) || 'desc';
    // Administrators' lists always follow order_by and sort (defaults id, desc), searches too;
    // only others' searches are ranked by relevance (lib/api/users.rb, 14.x).
    const rows =
      q.search?.trim() && !admin
        ? await paginate(req, reply, query.orderBy(searchRank(q.search)).orderBy('users.name').orderBy('users.id'), { offsetCapType: 'User' })
        : await paginateWithKeyset(
            req,
            reply,
            query,
            { column: `users.${orderBy}`, key: orderBy, direction: sort, idColumn: 'users.id', idKey: 'id' },
            { offsetCapType: 'User', keyset: KEYSET_ORDERS.has(orderBy) ? undefined : 'refuse' },
          );
    if (!admin) return rows.map((u) => presentUserBasic(u, { baseUrl: deps.config.externalUrl }));
    const view = await adminView(rows, q.with_custom_attributes === true);
    return rows.map((u) => presentUserAdmin(u, view));
  });

  api.get(`/users/${USER_ID_ROUTE}`, { schema: { params: UserIdParams, querystring: ShowUserQuery }, config: USERS_ANYONE }, async (req) => {
    const { id } = req.params as { id: number };
    const user = await findUserById(db, id);
    if (!user) throw notFound('User');
    const actor = req.actor;
    if (actor?.isAdmin) {
      const withAttributes = (req.query as { with_custom_attributes?: boolean }).with_custom_attributes === true;
      return presentUserAdmin(user, await adminView([user], withAttributes));
    }
    return presentUser(user, { baseUrl: deps.config.externalUrl }, actor ? { id: actor.user.id, isAdmin: false } : null);
  });

  api.get('/user', { config: USERS_SIGNED_IN }, async (req) => {
    const actor = requireUser(req);
    const view = await adminView([actor.user], false);
    return actor.isAdmin ? presentUserAdmin(actor.user, view) : presentUserSelf(actor.user, view);
  });

  api.post('/users', { schema: { body: CreateUserBody }, config: USERS_SIGNED_IN }, async (req, reply) => {
    const actor = requireAdmin(req);
    const user = await createUser(deps, req.body as CreateUserBody, { createdById: actor.user.id });
    reply.code(201);
    return presentAdmin(user);
  });

  api.put(`/users/${USER_ID_ROUTE}`, { schema: { params: UserIdParams, body: UpdateUserBody }, config: USERS_SIGNED_IN }, async (req) => {
    const actor = requireAdmin(req);
    const { id } = req.params as { id: number };
    return presentAdmin(await updateUser(deps, id, req.body as UpdateUserBody, actor.user.id));
  });

  api.delete(`/users/${USER_ID_ROUTE}`, { schema: { params: UserIdParams, body: DeleteUserBody }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    await deleteUser(deps, (req.params as { id: number }).id);
    return reply.code(204).send();
  });

  api.delete(`/users/${USER_ID_ROUTE}/identities/:provider`, { schema: { params: IdentityParams }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const { id, provider } = req.params as { id: number; provider: string };
    await deleteIdentity(deps, id, provider);
    return reply.code(204).send();
  });

  // Both answer a bare JSON value: true when the state changed, null / false when it was already so.
  api.post(`/users/${USER_ID_ROUTE}/block`, { schema: { params: UserIdParams }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const changed = await blockUser(deps, (req.params as { id: number }).id);
    return reply.code(201).type('application/json').send(JSON.stringify(changed));
  });

  api.post(`/users/${USER_ID_ROUTE}/unblock`, { schema: { params: UserIdParams }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const changed = await unblockUser(deps, (req.params as { id: number }).id);
    return reply.code(201).type('application/json').send(JSON.stringify(changed));
  });

  // A missing user is 404 for everyone, before the administrator check.
  customAttributeRoutes(api, {
    subject: 'user',
    path: `/users/${USER_ID_ROUTE}`,
    id: UserIdParams.properties.id,
    load: async (req) => {
      const user = await findUserById(db, (req.params as { id: number }).id);
      if (!user) throw notFound();
      return user.id;
    },
    readConfig: USERS_ANYONE,
    writeConfig: USERS_SIGNED_IN,
  });
};
