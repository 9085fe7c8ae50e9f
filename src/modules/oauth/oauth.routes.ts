// OAuth 2: POST /oauth/token (password, authorization_code and refresh_token grants), POST /oauth/revoke,
// GET /oauth/token/info. Bodies follow OAuth's own error format, not the API's. The password grant
// guesses passwords as signing in does, so it takes part in the ban of addresses that fail to
// authenticate: a wrong password counts once, and a banned address is refused unread.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { serviceContext } from '../../core/context.ts';
import { BANNED_BODY } from '../../core/rate-limit.ts';
import { Entity } from '../../core/schema.ts';
import { OauthErrorEntity, OauthTokenEntity, OauthTokenInfoEntity } from './oauth.schemas.ts';
import { authorizationCodeGrant } from './authorization-codes.service.ts';
import { OauthError, WrongPassword, inspectToken, passwordGrant, refreshGrant, revoke, secondsLeft } from './oauth.service.ts';

const config = { auth: 'none' as const };
const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

const INVALID_TOKEN = {
  unknown: 'The access token is invalid',
  revoked: 'The access token was revoked',
  expired: 'The access token expired',
} as const;

/** The client's id and secret: from HTTP Basic authentication, else from the form. */
function clientCredentials(authorization: string | undefined, p: Record<string, unknown>): { client_id?: string; client_secret?: string } {
  const basic = /^Basic\s+(\S+)/i.exec(authorization ?? '')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { client_id: decodeURIComponent(decoded.slice(0, colon)), client_secret: decodeURIComponent(decoded.slice(colon + 1)) };
  }
  return { client_id: str(p.client_id), client_secret: str(p.client_secret) };
}

function noStore(reply: FastifyReply) {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

export const oauthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { now } = app.deps;

  app.post('/oauth/token', { config, schema: { response: { 200: OauthTokenEntity, '4xx': OauthErrorEntity } } }, async (req, reply) => {
    const p = req.rawParams;
    try {
      const grant = str(p.grant_type);
      if (!grant) throw new OauthError('invalid_request', 'Missing required parameter: grant_type.');
      let body;
      if (grant === 'password') {
        if ((await app.throttle.bannedFor(req.ip)) > 0) return noStore(reply).code(403).type('text/plain').send(BANNED_BODY);
        body = await passwordGrant(serviceContext(req), { username: str(p.username), password: str(p.password), scope: str(p.scope) });
      } else if (grant === 'authorization_code') {
        body = await authorizationCodeGrant(serviceContext(req), { ...clientCredentials(req.headers.authorization, p), code: str(p.code), redirect_uri: str(p.redirect_uri), code_verifier: str(p.code_verifier) });
      } else if (grant === 'refresh_token') {
        body = await refreshGrant(serviceContext(req), { refresh_token: str(p.refresh_token) });
      } else {
        throw new OauthError('unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.');
      }
      return noStore(reply).send(body);
    } catch (error) {
      if (!(error instanceof OauthError)) throw error;
      if (error instanceof WrongPassword) await app.throttle.failedAuthentication(req.ip);
      return noStore(reply).code(error.status).send({ error: error.code, error_description: error.message });
    }
  });

  // RFC 7009: an unknown or missing token is not an error.
  app.post('/oauth/revoke', { config, schema: { response: { 200: Entity({}) } } }, async (req, reply) => {
    await revoke(serviceContext(req), str(req.rawParams.token));
    return reply.send({});
  });

  app.get('/oauth/token/info', { config, schema: { response: { 200: OauthTokenInfoEntity, 401: OauthErrorEntity } } }, async (req, reply) => {
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    const found = await inspectToken(serviceContext(req), str(req.rawParams.access_token) ?? bearer);
    if (found.problem !== null) {
      const description = INVALID_TOKEN[found.problem];
      return reply
        .code(401)
        .header('www-authenticate', `Bearer realm="Doorkeeper", error="invalid_token", error_description="${description}"`)
        .send({ error: 'invalid_token', error_description: description });
    }
    const { row } = found;
    const scopes = row.scopes.split(' ');
    const left = secondsLeft(row, now());
    return {
      resource_owner_id: row.user_id,
      scope: scopes,
      expires_in: left,
      application: { uid: row.application_uid },
      created_at: Math.floor(Date.parse(row.created_at) / 1000),
      scopes,
      expires_in_seconds: left,
    };
  });
};
