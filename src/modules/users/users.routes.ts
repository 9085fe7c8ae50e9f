// Users: spec Part 2 §4.2 (list, show, create, modify, delete, identities), block/unblock and
// custom attributes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import { paginate, paginateWithKeyset } from '../../core/pagination.ts';
import { NoContent, Nullable } from '../../core/schema.ts';
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
  UserAdminEntity,
  UserBasicEntity,
  UserEntity,
  UserIdParams,
  UserSelfEntity,
} from './users.schemas.ts';
import { blockUser, createUser, deleteIdentity, deleteUser, unblockUser, updateUser } from './users.service.ts';
import { anonymousMayReadUsers } from '../../domain/settings/application-settings.ts';

const KEYSET_ORDERS = new Set(['id', 'name', 'username']);

// read_user is registered on every users route but grants reads only; refusals name it on writes too.
const USERS_ANYONE = { auth: 'optional', scopes: ['read_user'] } as const;
const USERS_SIGNED_IN = { auth: 'required', scopes: ['read_user'] } as const;

/** Administrators see the administrator form; others the form their relation to the user allows. */
const AnyUserForm = Type.Union([UserAdminEntity, UserEntity]);
/** true when the state changed; null (block) or false (unblock) when it already was so. */
const StateChanged = Nullable(Type.Boolean());

export const userRoutes: FastifyPluginAsyncTypebox = async (api) => {
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

  api.get(
    '/users',
    { schema: { querystring: ListUsersQuery, response: { 200: Type.Array(Type.Union([UserAdminEntity, UserBasicEntity])) } }, config: USERS_ANYONE },
    async (req, reply) => {
      const q = req.query;
      const admin = req.actor?.isAdmin ?? false;
      // These filters need an administrator (401 / 403) before anything else is looked at.
      if (q.external || (q.extern_uid && q.provider)) requireAdmin(req);
      // Anonymous callers may look one user up by username, unless the instance restricts public.
      if (!req.actor && (!q.username || !(await anonymousMayReadUsers(db)))) throw forbidden('Not authorized to access /api/v4/users');

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
    },
  );

  api.get(`/users/${USER_ID_ROUTE}`, { schema: { params: UserIdParams, querystring: ShowUserQuery, response: { 200: AnyUserForm } }, config: USERS_ANYONE }, async (req) => {
    const user = await findUserById(db, req.params.id);
    const actor = req.actor;
    if (!user || (!actor && !(await anonymousMayReadUsers(db)))) throw notFound('User');
    if (actor?.isAdmin) return presentUserAdmin(user, await adminView([user], req.query.with_custom_attributes === true));
    return presentUser(user, { baseUrl: deps.config.externalUrl }, actor ? { id: actor.user.id, isAdmin: false } : null);
  });

  api.get('/user', { schema: { response: { 200: Type.Union([UserAdminEntity, UserSelfEntity]) } }, config: USERS_SIGNED_IN }, async (req) => {
    const actor = requireUser(req);
    const view = await adminView([actor.user], false);
    return actor.isAdmin ? presentUserAdmin(actor.user, view) : presentUserSelf(actor.user, view);
  });

  api.post('/users', { schema: { body: CreateUserBody, response: { 201: UserAdminEntity } }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const user = await createUser(serviceContext(req), req.body);
    reply.code(201);
    return presentAdmin(user);
  });

  api.put(`/users/${USER_ID_ROUTE}`, { schema: { params: UserIdParams, body: UpdateUserBody, response: { 200: UserAdminEntity } }, config: USERS_SIGNED_IN }, async (req) => {
    requireAdmin(req);
    return presentAdmin(await updateUser(serviceContext(req), req.params.id, req.body));
  });

  api.delete(
    `/users/${USER_ID_ROUTE}`,
    { schema: { params: UserIdParams, body: DeleteUserBody, response: { 204: NoContent } }, config: USERS_SIGNED_IN },
    async (req, reply) => {
      requireAdmin(req);
      await deleteUser(serviceContext(req), req.params.id, { hardDelete: req.body?.hard_delete });
      return reply.code(204).send();
    },
  );

  api.delete(
    `/users/${USER_ID_ROUTE}/identities/:provider`,
    { schema: { params: IdentityParams, response: { 204: NoContent } }, config: USERS_SIGNED_IN },
    async (req, reply) => {
      requireAdmin(req);
      await deleteIdentity(serviceContext(req), req.params.id, req.params.provider);
      return reply.code(204).send();
    },
  );

  // Both answer a bare JSON value.
  api.post(`/users/${USER_ID_ROUTE}/block`, { schema: { params: UserIdParams, response: { 201: StateChanged } }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const changed = await blockUser(serviceContext(req), req.params.id);
    return reply.code(201).send(changed);
  });

  api.post(`/users/${USER_ID_ROUTE}/unblock`, { schema: { params: UserIdParams, response: { 201: StateChanged } }, config: USERS_SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const changed = await unblockUser(serviceContext(req), req.params.id);
    return reply.code(201).send(changed);
  });

  // A missing user is 404 for everyone, before the administrator check.
  customAttributeRoutes(api, {
    subject: 'user',
    path: `/users/${USER_ID_ROUTE}`,
    id: UserIdParams.properties.id,
    load: async (_req, id) => {
      const user = await findUserById(db, Number(id));
      if (!user) throw notFound();
      return user.id;
    },
    readConfig: USERS_ANYONE,
    writeConfig: USERS_SIGNED_IN,
  });
};
