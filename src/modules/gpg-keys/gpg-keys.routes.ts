// Users' GPG keys (the platform's 14.x users API): the caller's own under /user/gpg_keys; anyone's
// to read under /users/:id/gpg_keys; adding, deleting and revoking another user's for administrators.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { GpgKeyRow, UserRow } from '../../db/schema.ts';
import { anonymousMayReadUsers } from '../../domain/settings/application-settings.ts';
import { findUserById } from '../users/users.finder.ts';
import { findUserGpgKey, userGpgKeys } from './gpg-keys.finder.ts';
import { presentGpgKey } from './gpg-keys.presenter.ts';
import { CreateGpgKeyBody, GpgKeyEntity, KeyIdParams, ListGpgKeysQuery, UserIdParams, UserKeyParams } from './gpg-keys.schemas.ts';
import { addGpgKey, deleteGpgKey, revokeGpgKey } from './gpg-keys.service.ts';

// As on the other users routes: read_user lets a token read, and only read.
const SIGNED_IN = { auth: 'required', scopes: ['read_user'] } as const;
const ANYONE = { auth: 'optional', scopes: ['read_user'] } as const;
/** Revoking answers 202 with the status itself as its body, as the platform's `status :accepted` does. */
const Accepted = Type.Literal(202);

export const gpgKeyRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db } = api.deps;

  async function ownKey(userId: number, keyId: number): Promise<GpgKeyRow> {
    const key = await findUserGpgKey(db, userId, keyId);
    if (!key) throw notFound('GPG Key');
    return key;
  }

  async function existingUser(id: number): Promise<UserRow> {
    const user = await findUserById(db, id);
    if (!user) throw notFound('User');
    return user;
  }

  /** A user whose keys the caller reads: anyone's, but anonymous callers not when public is restricted. */
  async function readableUser(signedIn: boolean, id: number): Promise<UserRow> {
    const user = await findUserById(db, id);
    if (!user || (!signedIn && !(await anonymousMayReadUsers(db)))) throw notFound('User');
    return user;
  }

  // ---- The caller's own keys ------------------------------------------------------------------

  api.get('/user/gpg_keys', { schema: { querystring: ListGpgKeysQuery, response: { 200: Type.Array(GpgKeyEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    const { user } = requireUser(req);
    return (await paginate(req, reply, userGpgKeys(db, user.id))).map(presentGpgKey);
  });

  api.get('/user/gpg_keys/:key_id', { schema: { params: KeyIdParams, response: { 200: GpgKeyEntity } }, config: SIGNED_IN }, async (req) => {
    return presentGpgKey(await ownKey(requireUser(req).user.id, req.params.key_id));
  });

  api.post('/user/gpg_keys', { schema: { body: CreateGpgKeyBody, response: { 201: GpgKeyEntity } }, config: SIGNED_IN }, async (req, reply) => {
    const { user } = requireUser(req);
    const row = await addGpgKey(serviceContext(req), user, req.body.key);
    reply.code(201);
    return presentGpgKey(row);
  });

  api.post('/user/gpg_keys/:key_id/revoke', { schema: { params: KeyIdParams, response: { 202: Accepted } }, config: SIGNED_IN }, async (req, reply) => {
    const key = await ownKey(requireUser(req).user.id, req.params.key_id);
    await revokeGpgKey(serviceContext(req), key);
    return reply.code(202).send(202);
  });

  api.delete('/user/gpg_keys/:key_id', { schema: { params: KeyIdParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    const key = await ownKey(requireUser(req).user.id, req.params.key_id);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(key.updated_at));
    await deleteGpgKey(serviceContext(req), key);
    return reply.code(204).send();
  });

  // ---- Another user's keys --------------------------------------------------------------------

  api.get('/users/:id/gpg_keys', { schema: { params: UserIdParams, querystring: ListGpgKeysQuery, response: { 200: Type.Array(GpgKeyEntity) } }, config: ANYONE }, async (req, reply) => {
    const user = await readableUser(req.actor !== null, req.params.id);
    return (await paginate(req, reply, userGpgKeys(db, user.id))).map(presentGpgKey);
  });

  api.get('/users/:id/gpg_keys/:key_id', { schema: { params: UserKeyParams, response: { 200: GpgKeyEntity } }, config: ANYONE }, async (req) => {
    const user = await readableUser(req.actor !== null, req.params.id);
    return presentGpgKey(await ownKey(user.id, req.params.key_id));
  });

  api.post('/users/:id/gpg_keys', { schema: { params: UserIdParams, body: CreateGpgKeyBody, response: { 201: GpgKeyEntity } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const user = await existingUser(req.params.id);
    const row = await addGpgKey(serviceContext(req), user, req.body.key);
    reply.code(201);
    return presentGpgKey(row);
  });

  api.post('/users/:id/gpg_keys/:key_id/revoke', { schema: { params: UserKeyParams, response: { 202: Accepted } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const key = await ownKey((await existingUser(req.params.id)).id, req.params.key_id);
    await revokeGpgKey(serviceContext(req), key);
    return reply.code(202).send(202);
  });

  api.delete('/users/:id/gpg_keys/:key_id', { schema: { params: UserKeyParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const key = await ownKey((await existingUser(req.params.id)).id, req.params.key_id);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(key.updated_at));
    await deleteGpgKey(serviceContext(req), key);
    return reply.code(204).send();
  });
};
