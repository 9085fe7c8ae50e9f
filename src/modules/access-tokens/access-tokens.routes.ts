// Personal access tokens (/personal_access_tokens, /users/:user_id/personal_access_tokens) and
// impersonation tokens (/users/:user_id/impersonation_tokens), with the platform's statuses.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { adminOnly, requireUser } from '../../core/access/guards.ts';
import type { Actor } from '../../core/auth/actor.ts';
import { serviceContext } from '../../core/context.ts';
import { apiError, badRequest, notFound, unauthorized } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { NoContent } from '../../core/schema.ts';
import { findUserById } from '../users/users.finder.ts';
import { findImpersonationToken, findTokenById, findTokens } from './access-tokens.finder.ts';
import { presentImpersonationToken, presentToken } from './access-tokens.presenter.ts';
import {
  CreateImpersonationTokenBody,
  CreatePersonalTokenBody,
  ImpersonationTokenParams,
  ImpersonationTokenEntity,
  ImpersonationTokenWithSecretEntity,
  ListImpersonationTokensQuery,
  ListTokensQuery,
  PersonalAccessTokenEntity,
  PersonalAccessTokenWithSecretEntity,
  TokenIdParams,
  UserTokenParams,
} from './access-tokens.schemas.ts';
import { createPersonalToken, issueToken, revokeToken } from './access-tokens.service.ts';

const required = { auth: 'required' as const };
/** A token may always read and revoke itself, whatever its scopes. */
const selfConfig = { auth: 'required' as const, anyScope: true };
/** Administrators only, checked before the parameters as the platform's `before` filter does. */
const adminConfig = { config: required, preValidation: adminOnly };

const NOT_A_PERSONAL_TOKEN = 'This endpoint requires token type to be a personal access token';

export const accessTokenRoutes: FastifyPluginAsyncTypebox = async (api) => {
  const { db, now } = api.deps;
  const today = () => now().toISOString().slice(0, 10);

  async function targetUser(userId: number) {
    const user = await findUserById(db, userId);
    if (!user) throw notFound('User');
    return user;
  }

  function ownToken(actor: Actor): number {
    if (actor.via !== 'personal_access_token' || actor.tokenId === null) throw badRequest(NOT_A_PERSONAL_TOKEN);
    return actor.tokenId;
  }

  // ---- personal access tokens -----------------------------------------------------------------

  api.get(
    '/personal_access_tokens',
    { schema: { querystring: ListTokensQuery, response: { 200: Type.Array(PersonalAccessTokenEntity) } }, config: required },
    async (req, reply) => {
      const actor = requireUser(req);
      const { user_id: userId, page: _page, per_page: _perPage, ...filters } = req.query;
      let scope: { userId?: number; impersonation?: boolean };
      if (actor.isAdmin) {
        // Administrators see every token, or one user's (404 when that user does not exist).
        if (userId !== undefined && !(await findUserById(db, userId))) throw notFound();
        scope = { userId };
      } else {
        if (userId !== undefined && userId !== actor.user.id) throw unauthorized();
        scope = { userId: actor.user.id, impersonation: false };
      }
      const rows = await paginate(req, reply, findTokens(db, { ...filters, ...scope }, today()).orderBy('id', 'asc'));
      const day = today();
      return rows.map((r) => presentToken(r, day));
    },
  );

  api.get('/personal_access_tokens/self', { schema: { response: { 200: PersonalAccessTokenEntity } }, config: selfConfig }, async (req) => {
    const row = await findTokenById(db, ownToken(requireUser(req)));
    if (!row) throw unauthorized();
    return presentToken(row, today());
  });

  api.get('/personal_access_tokens/:id', { schema: { params: TokenIdParams, response: { 200: PersonalAccessTokenEntity } }, config: required }, async (req) => {
    const actor = requireUser(req);
    const row = await findTokenById(db, req.params.id);
    // Only administrators learn whether a token exists; others get 401 for a token not theirs.
    if (!row || (!actor.isAdmin && row.user_id !== actor.user.id)) throw actor.isAdmin ? notFound() : unauthorized();
    return presentToken(row, today());
  });

  api.delete('/personal_access_tokens/self', { schema: { response: { 204: NoContent } }, config: selfConfig }, async (req, reply) => {
    await revokeToken(serviceContext(req), ownToken(requireUser(req)));
    return reply.code(204).send();
  });

  api.delete('/personal_access_tokens/:id', { schema: { params: TokenIdParams, response: { 204: NoContent } }, config: required }, async (req, reply) => {
    const actor = requireUser(req);
    const row = await findTokenById(db, req.params.id);
    // The platform looks the token up with find (a record-not-found 404, lower-case "found"),
    // then refuses a token the caller may not revoke.
    if (!row) throw apiError(404, '404 Not found');
    if (!actor.isAdmin && row.user_id !== actor.user.id) throw badRequest();
    await revokeToken(serviceContext(req), row.id);
    return reply.code(204).send();
  });

  api.post(
    '/users/:user_id/personal_access_tokens',
    { schema: { params: UserTokenParams, body: CreatePersonalTokenBody, response: { 201: PersonalAccessTokenWithSecretEntity } }, ...adminConfig },
    async (req, reply) => {
      const user = await targetUser(req.params.user_id);
      const { body } = req;
      const { row, token } = await createPersonalToken(serviceContext(req), { userId: user.id, name: body.name, scopes: body.scopes, expiresAt: body.expires_at }, user);
      reply.code(201);
      return { ...presentToken(row, today()), token };
    },
  );

  // ---- impersonation tokens (administrators only) -----------------------------------------------

  api.get(
    '/users/:user_id/impersonation_tokens',
    { schema: { params: UserTokenParams, querystring: ListImpersonationTokensQuery, response: { 200: Type.Array(ImpersonationTokenEntity) } }, ...adminConfig },
    async (req, reply) => {
      const user = await targetUser(req.params.user_id);
      const { state } = req.query;
      const rows = await paginate(req, reply, findTokens(db, { userId: user.id, impersonation: true, state }, today()).orderBy('id', 'asc'));
      const day = today();
      return rows.map((r) => presentImpersonationToken(r, day));
    },
  );

  async function impersonationToken(params: ImpersonationTokenParams) {
    const user = await targetUser(params.user_id);
    const row = await findImpersonationToken(db, user.id, params.impersonation_token_id);
    if (!row) throw notFound('Impersonation Token');
    return row;
  }

  api.get(
    '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    { schema: { params: ImpersonationTokenParams, response: { 200: ImpersonationTokenEntity } }, ...adminConfig },
    async (req) => presentImpersonationToken(await impersonationToken(req.params), today()),
  );

  api.post(
    '/users/:user_id/impersonation_tokens',
    { schema: { params: UserTokenParams, body: CreateImpersonationTokenBody, response: { 201: ImpersonationTokenWithSecretEntity } }, ...adminConfig },
    async (req, reply) => {
      const user = await targetUser(req.params.user_id);
      const { body } = req;
      const { row, token } = await issueToken(
        serviceContext(req),
        { userId: user.id, name: body.name, scopes: body.scopes ?? [], expiresAt: body.expires_at, impersonation: true },
        user,
      );
      reply.code(201);
      return { ...presentImpersonationToken(row, today()), token };
    },
  );

  api.delete(
    '/users/:user_id/impersonation_tokens/:impersonation_token_id',
    { schema: { params: ImpersonationTokenParams, response: { 204: NoContent } }, ...adminConfig },
    async (req, reply) => {
      const row = await impersonationToken(req.params);
      await revokeToken(serviceContext(req), row.id);
      return reply.code(204).send();
    },
  );
};
