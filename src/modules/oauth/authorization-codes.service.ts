// The authorization-code flow: a signed-in user lets an application act for them (GET and POST
// /oauth/authorize give a short-lived code), and the application exchanges the code once for a
// token (POST /oauth/token, grant_type=authorization_code), proving it is the client the code was
// given to by its secret or, for public clients, by the PKCE verifier (RFC 7636).
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { withTransaction } from '../../core/context.ts';
import { digest, generateToken, safeEqual } from '../../core/auth/secrets.ts';
import type { DB, OauthApplicationRow } from '../../db/schema.ts';
import { findApplicationByUid } from '../applications/applications.finder.ts';
import { APPLICATION_SCOPES, OUT_OF_BAND_URI, redirectUris, scopeList } from '../applications/applications.validation.ts';
import { OauthError, invalidGrant, issueToken } from './oauth.service.ts';

/** A code lives ten minutes, as the platform's. */
const CODE_LIFETIME = 600;
const CODE_CHALLENGE_METHODS = ['plain', 'S256'];
/** Scopes an application gets when it asks for none (the platform's default). */
const DEFAULT_SCOPES = ['api'];

export const INVALID_CLIENT = 'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.';

export interface AuthorizationRequest {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
}

/** A request that may be shown to the user: its application, where to send them back, what it asks. */
export interface ValidAuthorization {
  application: OauthApplicationRow;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
}

/**
 * Checks a request as the platform's OAuth provider does, in its order. A problem with the client
 * or its redirect URI is shown on a page (`redirect: false`): sending the user to an address the
 * application did not register would make this server an open redirect. Later problems go back to
 * the application at its redirect URI.
 */
export async function checkAuthorization(
  db: Kysely<DB>,
  request: AuthorizationRequest,
): Promise<{ ok: true; value: ValidAuthorization } | { ok: false; redirect: false; error: OauthError } | { ok: false; redirect: string; error: OauthError }> {
  const application = request.client_id ? await findApplicationByUid(db, request.client_id) : undefined;
  if (!application) return { ok: false, redirect: false, error: new OauthError('invalid_client', INVALID_CLIENT, 401) };
  const registered = redirectUris(application.redirect_uri);
  const redirectUri = request.redirect_uri;
  if (!redirectUri || !registered.includes(redirectUri)) {
    return { ok: false, redirect: false, error: new OauthError('invalid_redirect_uri', "The requested redirect uri is malformed or doesn't match client redirect URI.") };
  }
  const back = (error: OauthError) => ({ ok: false as const, redirect: redirectUri, error });
  if (!request.response_type) return back(new OauthError('invalid_request', 'Missing required parameter: response_type.'));
  if (request.response_type !== 'code') return back(new OauthError('unsupported_response_type', 'The authorization server does not support this response type.'));
  const scopes = request.scope ? [...new Set(scopeList(request.scope))] : DEFAULT_SCOPES;
  const allowed = new Set(scopeList(application.scopes));
  if (scopes.length === 0 || scopes.some((s) => !APPLICATION_SCOPES.has(s) || !allowed.has(s))) {
    return back(new OauthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.'));
  }
  const method = request.code_challenge ? (request.code_challenge_method ?? 'plain') : null;
  if (method !== null && !CODE_CHALLENGE_METHODS.includes(method)) {
    return back(new OauthError('invalid_request', 'The code_challenge_method must be one of plain, S256.'));
  }
  return { ok: true, value: { application, redirectUri, scopes, state: request.state, codeChallenge: request.code_challenge ?? null, codeChallengeMethod: method } };
}

/**
 * Whether the user need not be asked: the application is trusted, or the user already gave it
 * these scopes (a token of theirs for it, not revoked, holds every one of them).
 */
export async function alreadyAuthorized(db: Kysely<DB>, userId: number, auth: ValidAuthorization): Promise<boolean> {
  if (auth.application.trusted) return true;
  const tokens = await db
    .selectFrom('oauth_access_tokens')
    .select('scopes')
    .where('application_id', '=', auth.application.id)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
  return tokens.some((t) => auth.scopes.every((s) => t.scopes.split(' ').includes(s)));
}

/** The user said yes: a new code, and the address that takes it back to the application. */
export async function grantAuthorization(ctx: ServiceContext, userId: number, auth: ValidAuthorization): Promise<string> {
  const code = generateToken('', 64);
  await ctx.db
    .insertInto('oauth_access_grants')
    .values({
      application_id: auth.application.id,
      user_id: userId,
      code_digest: digest(code),
      redirect_uri: auth.redirectUri,
      scopes: auth.scopes.join(' '),
      code_challenge: auth.codeChallenge,
      code_challenge_method: auth.codeChallengeMethod,
      expires_in: CODE_LIFETIME,
      revoked_at: null,
      created_at: ctx.now().toISOString(),
    })
    .execute();
  if (auth.redirectUri === OUT_OF_BAND_URI) return `/oauth/authorize/native?code=${encodeURIComponent(code)}`;
  return withQuery(auth.redirectUri, { code, state: auth.state });
}

/** The address that tells the application about a refusal or a problem with its request. */
export function errorRedirect(redirectUri: string, error: OauthError, state: string | undefined): string {
  return withQuery(redirectUri, { error: error.code, error_description: error.message, state });
}

function withQuery(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

export interface CodeExchange {
  client_id?: string;
  client_secret?: string;
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
}

/** The client of a token request: its id and secret must match; a public client may omit the secret. */
async function authenticateClient(db: Kysely<DB>, p: CodeExchange): Promise<OauthApplicationRow> {
  const application = p.client_id ? await findApplicationByUid(db, p.client_id) : undefined;
  if (!application) throw new OauthError('invalid_client', INVALID_CLIENT, 401);
  const secretOk = p.client_secret !== undefined && safeEqual(digest(p.client_secret), application.secret_digest);
  if (!secretOk && (application.confidential || p.client_secret !== undefined)) throw new OauthError('invalid_client', INVALID_CLIENT, 401);
  return application;
}

function verifierMatches(verifier: string, challenge: string, method: string | null): boolean {
  const computed = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return safeEqual(computed, challenge);
}

/** grant_type=authorization_code: the code is spent, whatever follows. */
export async function authorizationCodeGrant(ctx: ServiceContext, p: CodeExchange) {
  const application = await authenticateClient(ctx.db, p);
  if (!p.code) throw new OauthError('invalid_request', 'Missing required parameter: code.');
  const grant = await ctx.db.selectFrom('oauth_access_grants').selectAll().where('code_digest', '=', digest(p.code)).executeTakeFirst();
  const now = ctx.now();
  if (!grant || grant.revoked_at !== null || grant.application_id !== application.id) throw invalidGrant();
  if (Date.parse(grant.created_at) + grant.expires_in * 1000 <= now.getTime() || grant.redirect_uri !== p.redirect_uri) throw invalidGrant();
  if (grant.code_challenge !== null) {
    if (!p.code_verifier) throw new OauthError('invalid_request', 'Missing required parameter: code_verifier.');
    if (!verifierMatches(p.code_verifier, grant.code_challenge, grant.code_challenge_method)) throw invalidGrant();
  }
  const user = await ctx.db.selectFrom('users').select(['id', 'state']).where('id', '=', grant.user_id).executeTakeFirst();
  if (!user || user.state !== 'active') throw invalidGrant();
  return withTransaction(ctx, async ({ db: trx }) => {
    const spent = await trx.updateTable('oauth_access_grants').set({ revoked_at: now.toISOString() }).where('id', '=', grant.id).where('revoked_at', 'is', null).executeTakeFirst();
    // Two exchanges racing on one code: only the first gets a token.
    if (Number(spent.numUpdatedRows) === 0) throw invalidGrant();
    return issueToken(trx, user.id, grant.scopes.split(' '), now, application.id);
  });
}
