// Personal access tokens (/personal_access_tokens, /users/:user_id/personal_access_tokens) and
// impersonation tokens (/users/:user_id/impersonation_tokens).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { DB, PersonalAccessTokenRow } from '../../db/schema.ts';
import { requireAdmin, requireUser } from '../../core/access/guards.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { paginate } from '../../core/pagination.ts';
import { findUserById } from '../users/users.finder.ts';
import { presentImpersonationToken, presentToken } from './access-tokens.presenter.ts';
import {
  CreateTokenBody,
  ImpersonationTokenParams,
  ListImpersonationTokensQuery,
  ListTokensQuery,
  TokenIdParams,
  UserTokenParams,
} from './access-tokens.schemas.ts';
import { issueToken, revokeToken } from './access-tokens.service.ts';

type TokenQuery = SelectQueryBuilder<DB, 'personal_access_tokens', PersonalAccessTokenRow>;

function byState(qb: TokenQuery, state: string | undefined, today: string): TokenQuery {
  if (state === 'active') {
    return qb.where('revoked', '=', false).where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', today)]));
  }
  if (state === 'inactive') return qb.where((eb) => eb.or([eb('revoked', '=', true), eb('expires_at', '<=', today)]));
  return qb;
}

export const accessTokenRoutes: FastifyPluginAsync = async (api) => {
  const { db, now } = api.deps;
  const today = () => now().toISOString().slice(0, 10);

  async function targetUser(req: FastifyRequest) {
    requireAdmin(req);
    const user = await findUserById(db, (req.params as { user_id: number }).user_id);
    if (!user) throw notFound('User');
    return user;
  }

  // ---- personal access tokens -----------------------------------------------------------------

  api.get('/personal_access_tokens', { schema: { querystring: ListTokensQuery }, config: { auth: 'required' } }, async (req, reply) => {
    const actor = requireUser(req);
    const q = req.query as ListTokensQuery;
    let qb: TokenQuery = db.selectFrom('personal_access_tokens').selectAll().where('impersonation', '=', false);
    // Administrators see every user's tokens and may pick one user; others see their own.
    if (!actor.isAdmin) qb = qb.where('user_id', '=', actor.user.id);
    else if (q.user_id !== undefined) qb = qb.where('user_id', '=', q.user_id);
    qb = byState(qb, q.state, today());
    if (q.revoked !== undefined) qb = qb.where('revoked', '=', q.revoked);
    if (q.search) qb = qb.where(sql`lower(name)`, 'like', `%${q.search.toLowerCase()}%`);
    if (q.created_before) qb = qb.where('created_at', '<=', new Date(q.created_before).toISOString());
    if (q.created_after) qb = qb.where('created_at', '>=', new Date(q.created_after).toISOString());
    if (q.last_used_before) qb = qb.where('last_used_at', '<=', new Date(q.last_used_before).toISOString());
    if (q.last_used_after) qb = qb.where('last_used_at', '>=', new Date(q.last_used_after).toISOString());
    const rows = await paginate(req, reply, qb.orderBy('id', 'asc'));
    const day = today();
    return rows.map((r) => presentToken(r, day));
  });

  api.get('/personal_access_tokens/self', { config: { auth: 'required' } }, async (req) => {
    const actor = requireUser(req);
    if (actor.via !== 'personal_access_token' || actor.tokenId === null) throw notFound();
    const row = await db.selectFrom('personal_access_tokens').selectAll().where('id', '=', actor.tokenId).executeTakeFirst();
    if (!row) throw notFound();
    return presentToken(row, today());
  });

  api.get('/personal_access_tokens/:id', { schema: { params: TokenIdParams }, config: { auth: 'required' } }, async (req) => {
    const actor = requireUser(req);
    const row = await db.selectFrom('personal_access_tokens').selectAll().where('id', '=', (req.params as { id: number }).id).executeTakeFirst();
    if (!row || row.impersonation || (!actor.isAdmin && row.user_id !== actor.user.id)) throw notFound();
    return presentToken(row, today());
  });

  api.delete('/personal_access_tokens/self', { config: { auth: 'required' } }, async (req, reply) => {
    const actor = requireUser(req);
    if (actor.via !== 'personal_access_token' || actor.tokenId === null) throw badRequest();
    await revokeToken(db, actor.tokenId, now());
    return reply.code(204).send();
  });

  api.delete('/personal_access_tokens/:id', { schema: { params: TokenIdParams }, config: { auth: 'required' } }, async (req, reply) => {
    const actor = requireUser(req);
    const row = await db.selectFrom('personal_access_tokens').selectAll().where('id', '=', (req.params as { id: number }).id).executeTakeFirst();
    // The platform finds the token first (404 "Not found"), then refuses one the caller may not revoke.
    if (!row || row.impersonation) throw notFound();
    if (!actor.isAdmin && row.user_id !== actor.user.id) throw badRequest();
    await revokeToken(db, row.id, now());
    return reply.code(204).send();
  });

  api.post('/users/:user_id/personal_access_tokens', { schema: { params: UserTokenParams, body: CreateTokenBody }, config: { auth: 'required' } }, async (req, reply) => {
    const user = await targetUser(req);
    const body = req.body as CreateTokenBody;
    const { row, token } = await issueToken(db, { userId: user.id, name: body.name, scopes: body.scopes, expiresAt: body.expires_at }, user, now());
    reply.code(201);
    return { ...presentToken(row, today()), token };
  });

  // ---- impersonation tokens (administrators only) -----------------------------------------------

  api.get('/users/:user_id/impersonation_tokens', { schema: { params: UserTokenParams, querystring: ListImpersonationTokensQuery }, config: { auth: 'required' } }, async (req, reply) => {
    const user = await targetUser(req);
    const { state } = req.query as { state: string };
    const qb = byState(db.selectFrom('personal_access_tokens').selectAll().where('user_id', '=', user.id).where('impersonation', '=', true), state, today());
    const rows = await paginate(req, reply, qb.orderBy('id', 'asc'));
    const day = today();
    return rows.map((r) => presentImpersonationToken(r, day));
  });

  async function findImpersonationToken(req: FastifyRequest) {
    const user = await targetUser(req);
    const row = await db
      .selectFrom('personal_access_tokens')
      .selectAll()
      .where('id', '=', (req.params as { impersonation_token_id: number }).impersonation_token_id)
      .where('user_id', '=', user.id)
      .where('impersonation', '=', true)
      .executeTakeFirst();
    if (!row) throw notFound('Impersonation Token');
    return row;
  }

  api.get('/users/:user_id/impersonation_tokens/:impersonation_token_id', { schema: { params: ImpersonationTokenParams }, config: { auth: 'required' } }, async (req) => {
    return presentImpersonationToken(await findImpersonationToken(req), today());
  });

  api.post('/users/:user_id/impersonation_tokens', { schema: { params: UserTokenParams, body: CreateTokenBody }, config: { auth: 'required' } }, async (req, reply) => {
    const user = await targetUser(req);
    const body = req.body as CreateTokenBody;
    const { row, token } = await issueToken(
      db,
      { userId: user.id, name: body.name, scopes: body.scopes, expiresAt: body.expires_at, impersonation: true },
      user,
      now(),
    );
    reply.code(201);
    return { ...presentImpersonationToken(row, today()), token };
  });

  api.delete('/users/:user_id/impersonation_tokens/:impersonation_token_id', { schema: { params: ImpersonationTokenParams }, config: { auth: 'required' } }, async (req, reply) => {
    const row = await findImpersonationToken(req);
    await revokeToken(db, row.id, now());
    return reply.code(204).send();
  });
};
