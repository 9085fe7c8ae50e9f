// OAuth 2: POST /oauth/token (password and refresh_token grants), POST /oauth/revoke,
// GET /oauth/token/info. Bodies follow OAuth's own error format, not the API's.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { OauthError, findActiveToken, passwordGrant, refreshGrant, revoke } from './oauth.service.ts';

const config = { auth: 'none' as const };
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

function sendOauthError(reply: FastifyReply, error: OauthError) {
  return reply.code(error.status).header('cache-control', 'no-store').send({ error: error.code, error_description: error.message });
}

export const oauthRoutes: FastifyPluginAsync = async (app) => {
  const { db, config: appConfig, now } = app.deps;

  app.post('/oauth/token', { config }, async (req, reply) => {
    const p = req.rawParams;
    try {
      const grant = str(p.grant_type);
      if (!grant) throw new OauthError('invalid_request', 'Missing required parameter: grant_type.');
      let body;
      if (grant === 'password') {
        body = await passwordGrant(db, appConfig, { username: str(p.username), password: str(p.password), scope: str(p.scope) }, now());
      } else if (grant === 'refresh_token') {
        body = await refreshGrant(db, { refresh_token: str(p.refresh_token) }, now());
      } else {
        throw new OauthError('unsupported_grant_type', 'The authorization grant type is not supported by the authorization server.');
      }
      return reply.header('cache-control', 'no-store').send(body);
    } catch (error) {
      if (error instanceof OauthError) return sendOauthError(reply, error);
      throw error;
    }
  });

  app.post('/oauth/revoke', { config }, async (req, reply) => {
    await revoke(db, str(req.rawParams.token), now());
    return reply.send({});
  });

  app.get('/oauth/token/info', { config }, async (req, reply) => {
    const bearer = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '')?.[1];
    const token = str(req.rawParams.access_token) ?? bearer;
    const row = token ? await findActiveToken(db, token, now()) : undefined;
    if (!row) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="Doorkeeper", error="invalid_token", error_description="The access token is invalid"')
        .send({ error: 'invalid_token', error_description: 'The access token is invalid' });
    }
    const scopes = row.scopes.split(' ');
    const createdAt = Math.floor(Date.parse(row.created_at) / 1000);
    return {
      resource_owner_id: row.user_id,
      scope: scopes,
      expires_in: row.expires_in === null ? null : Math.max(0, createdAt + row.expires_in - Math.floor(now().getTime() / 1000)),
      application: { uid: null },
      created_at: createdAt,
      scopes,
      expires_in_seconds: row.expires_in === null ? null : Math.max(0, createdAt + row.expires_in - Math.floor(now().getTime() / 1000)),
    };
  });
};
