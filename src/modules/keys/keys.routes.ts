// Users' SSH keys (/user/keys, /users/:id/keys) and the administrators' look-ups of any key
// (/keys/:id, /keys?fingerprint=), as the platform's 14.x users and keys APIs answer them.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { checkUnmodifiedSince } from '../../core/preconditions.ts';
import { NoContent } from '../../core/schema.ts';
import type { KeyRow, UserRow } from '../../db/schema.ts';
import { anonymousMayReadUsers } from '../../domain/settings/application-settings.ts';
import { parseFingerprint } from '../../domain/ssh-public-keys.ts';
import { findUserByIdOrUsername } from '../events/events.finder.ts';
import { findUserById, loadIdentities } from '../users/users.finder.ts';
import { presentUserSelf } from '../users/users.presenter.ts';
import { deployKeyProjects, findKeyByFingerprint, findKeyById, findUserKey, keyOwner, userKeys } from './keys.finder.ts';
import { presentDeployKeyWithUser, presentSshKey, presentSshKeyWithUser } from './keys.presenter.ts';
import {
  AnyKeyParams,
  CreateKeyBody,
  DeployKeyWithUserEntity,
  FingerprintQuery,
  KeyIdParams,
  ListKeysQuery,
  SshKeyEntity,
  SshKeyWithUserEntity,
  UserIdParams,
  UserKeyParams,
  UserRefKeyParams,
  UserRefParams,
} from './keys.schemas.ts';
import { addUserKey, deleteUserKey } from './keys.service.ts';

// As on the users routes: read_user lets a token read, and only read.
const SIGNED_IN = { auth: 'required', scopes: ['read_user'] } as const;
const ANYONE = { auth: 'optional', scopes: ['read_user'] } as const;
const ADMINISTRATORS = { auth: 'required' } as const;

export const keyRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, config } = api.deps;
  // The platform names its host (without the port) in the keys it publishes.
  const host = new URL(config.externalUrl).hostname;

  async function ownKey(user: UserRow, keyId: number): Promise<KeyRow> {
    const key = await findUserKey(db, user.id, keyId);
    if (!key) throw notFound('Key');
    return key;
  }

  async function existingUser(id: number): Promise<UserRow> {
    const user = await findUserById(db, id);
    if (!user) throw notFound('User');
    return user;
  }

  /**
   * A user named by id or username, whose keys whoever may read the user reads: anyone, but
   * anonymous callers not when the instance restricts public visibility.
   */
  async function readableUser(signedIn: boolean, ref: string): Promise<UserRow> {
    const user = await findUserByIdOrUsername(db, ref);
    if (!user || (!signedIn && !(await anonymousMayReadUsers(db)))) throw notFound('User');
    return user;
  }

  /** The key's owner in the public form, which administrators see. */
  async function ownerOf(key: KeyRow) {
    const owner = await keyOwner(db, key);
    return owner && presentUserSelf(owner, { baseUrl: config.externalUrl, identities: await loadIdentities(db, [owner.id]) });
  }

  // ---- The caller's own keys ------------------------------------------------------------------

  api.get('/user/keys', { schema: { querystring: ListKeysQuery, response: { 200: Type.Array(SshKeyEntity) } }, config: SIGNED_IN }, async (req, reply) => {
    const { user } = requireUser(req);
    const rows = await paginate(req, reply, userKeys(db, user.id));
    return rows.map((r) => presentSshKey(r, user.name, host));
  });

  api.get('/user/keys/:key_id', { schema: { params: KeyIdParams, response: { 200: SshKeyEntity } }, config: SIGNED_IN }, async (req) => {
    const { user } = requireUser(req);
    return presentSshKey(await ownKey(user, req.params.key_id), user.name, host);
  });

  api.post('/user/keys', { schema: { body: CreateKeyBody, response: { 201: SshKeyEntity } }, config: SIGNED_IN }, async (req, reply) => {
    const { user } = requireUser(req);
    const row = await addUserKey(serviceContext(req), user, req.body);
    reply.code(201);
    return presentSshKey(row, user.name, host);
  });

  api.delete('/user/keys/:key_id', { schema: { params: KeyIdParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    const key = await ownKey(requireUser(req).user, req.params.key_id);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(key.updated_at));
    await deleteUserKey(serviceContext(req), key);
    return reply.code(204).send();
  });

  // ---- Another user's keys --------------------------------------------------------------------

  api.get('/users/:user_id/keys', { schema: { params: UserRefParams, querystring: ListKeysQuery, response: { 200: Type.Array(SshKeyEntity) } }, config: ANYONE }, async (req, reply) => {
    const user = await readableUser(req.actor !== null, req.params.user_id);
    const rows = await paginate(req, reply, userKeys(db, user.id));
    return rows.map((r) => presentSshKey(r, user.name, host));
  });

  api.get('/users/:user_id/keys/:key_id', { schema: { params: UserRefKeyParams, response: { 200: SshKeyEntity } }, config: ANYONE }, async (req) => {
    const user = await readableUser(req.actor !== null, req.params.user_id);
    return presentSshKey(await ownKey(user, req.params.key_id), user.name, host);
  });

  api.post('/users/:user_id/keys', { schema: { params: UserIdParams, body: CreateKeyBody, response: { 201: SshKeyEntity } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const user = await existingUser(req.params.user_id);
    const row = await addUserKey(serviceContext(req), user, req.body);
    reply.code(201);
    return presentSshKey(row, user.name, host);
  });

  api.delete('/users/:user_id/keys/:key_id', { schema: { params: UserKeyParams, response: { 204: NoContent } }, config: SIGNED_IN }, async (req, reply) => {
    requireAdmin(req);
    const key = await ownKey(await existingUser(req.params.user_id), req.params.key_id);
    checkUnmodifiedSince(req.headers['if-unmodified-since'], Date.parse(key.updated_at));
    await deleteUserKey(serviceContext(req), key);
    return reply.code(204).send();
  });

  // ---- Any key, for administrators --------------------------------------------------------------

  api.get('/keys/:id', { schema: { params: AnyKeyParams, response: { 200: SshKeyWithUserEntity } }, config: ADMINISTRATORS }, async (req) => {
    requireAdmin(req);
    const id = /^\d+$/.test(req.params.id) ? Number(req.params.id) : Number.NaN;
    const key = Number.isSafeInteger(id) ? await findKeyById(db, id) : undefined;
    // The platform's record-not-found answer (lower-case "found").
    if (!key) throw apiError(404, '404 Not found');
    return presentSshKeyWithUser(key, await ownerOf(key), host);
  });

  api.get(
    '/keys',
    { schema: { querystring: FingerprintQuery, response: { 200: Type.Union([DeployKeyWithUserEntity, SshKeyWithUserEntity]) } }, config: ADMINISTRATORS },
    async (req) => {
      requireAdmin(req);
      const fingerprint = parseFingerprint(req.query.fingerprint);
      if (!fingerprint) throw apiError(400, 'Failed to return the key');
      const key = await findKeyByFingerprint(db, fingerprint);
      if (!key) throw notFound('Key');
      const owner = await ownerOf(key);
      // A deploy key shows which projects use it, too.
      return key.type === 'DeployKey' ? presentDeployKeyWithUser(key, owner, host, await deployKeyProjects(db, key.id)) : presentSshKeyWithUser(key, owner, host);
    },
  );
};
