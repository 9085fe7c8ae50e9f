// OAuth 2 tokens for the password and refresh_token grants (authorization-codes.service.ts has the
// authorization_code grant). Access tokens live two hours.
import type { Kysely } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { DB, OauthAccessTokenRow, UserRow } from '../../db/schema.ts';
import { ADMIN_ONLY_SCOPES, OAUTH_ONLY_SCOPES, SCOPES } from '../../core/auth/scopes.ts';
import { digest, generateToken } from '../../core/auth/secrets.ts';
import { authenticatePassword } from '../users/index.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import type { OauthToken } from './oauth.schemas.ts';

export const ACCESS_TOKEN_LIFETIME = 7200;

/** OAuth errors have their own body: {"error", "error_description"}. */
export class OauthError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, description: string, status = 400) {
    super(description);
    this.code = code;
    this.status = status;
  }
}

const INVALID_GRANT =
  'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.';

export const invalidGrant = () => new OauthError('invalid_grant', INVALID_GRANT);

/**
 * The password grant's refusal of a login and password that do not match: the same answer as any
 * invalid grant, told apart so that the route counts it as a failed authentication of the address.
 */
export class WrongPassword extends OauthError {
  constructor() {
    super('invalid_grant', INVALID_GRANT);
  }
}

/** The requested scopes (api when none); administrators' scopes only for administrators. */
function parseScope(raw: string | undefined, user: UserRow): string[] {
  const scopes = (raw ?? 'api').split(/\s+/).filter(Boolean);
  const known = new Set<string>([...SCOPES, ...OAUTH_ONLY_SCOPES]);
  if (!user.admin) for (const s of ADMIN_ONLY_SCOPES) known.delete(s);
  if (scopes.length === 0 || scopes.some((s) => !known.has(s))) {
    throw new OauthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
  }
  return [...new Set(scopes)];
}

/** A new access and refresh token pair; `applicationId` names the application it was issued to. */
export async function issueToken(db: Kysely<DB>, userId: number, scopes: string[], now: Date, applicationId: number | null = null): Promise<OauthToken> {
  const access = generateToken('', 64);
  const refresh = generateToken('', 64);
  const created = now.toISOString();
  await db
    .insertInto('oauth_access_tokens')
    .values({
      user_id: userId,
      token_digest: digest(access),
      refresh_token_digest: digest(refresh),
      scopes: scopes.join(' '),
      expires_in: ACCESS_TOKEN_LIFETIME,
      revoked_at: null,
      created_at: created,
      application_id: applicationId,
    })
    .execute();
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_LIFETIME,
    refresh_token: refresh,
    scope: scopes.join(' '),
    created_at: Math.floor(now.getTime() / 1000),
  };
}

/**
 * Doorkeeper checks the resource owner before the scopes. Users with two-factor authentication
 * cannot use this grant: it has no second factor.
 */
export async function passwordGrant(ctx: ServiceContext, p: { username?: string; password?: string; scope?: string }) {
  if (!p.username) throw new OauthError('invalid_request', 'Missing required parameter: username.');
  if (!p.password) throw new OauthError('invalid_request', 'Missing required parameter: password.');
  // Passwords off for git and the API (password_authentication_enabled_for_git): no password is looked at.
  if (!(await applicationSettings(ctx.db)).password_authentication_enabled_for_git) throw invalidGrant();
  const user = await authenticatePassword(ctx, p.username, p.password);
  if (!user) throw new WrongPassword();
  if (user.state !== 'active' || user.two_factor_enabled) throw invalidGrant();
  return issueToken(ctx.db, user.id, parseScope(p.scope, user), ctx.now());
}

/** Exchanges a refresh token for a new pair; the old access token is revoked. */
export async function refreshGrant(ctx: ServiceContext, p: { refresh_token?: string }) {
  if (!p.refresh_token) throw new OauthError('invalid_request', 'Missing required parameter: refresh_token.');
  const row = await ctx.db.selectFrom('oauth_access_tokens').selectAll().where('refresh_token_digest', '=', digest(p.refresh_token)).executeTakeFirst();
  if (!row || row.revoked_at) throw invalidGrant();
  const user = await ctx.db.selectFrom('users').select(['id', 'state']).where('id', '=', row.user_id).executeTakeFirst();
  if (!user || user.state !== 'active') throw invalidGrant();
  const now = ctx.now();
  return withTransaction(ctx, async ({ db: trx }) => {
    const revoked = await trx
      .updateTable('oauth_access_tokens')
      .set({ revoked_at: now.toISOString(), refresh_token_digest: null })
      .where('id', '=', row.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    // Two refreshes racing on one token: only the first gets a new pair.
    if (Number(revoked.numUpdatedRows) === 0) throw invalidGrant();
    return issueToken(trx, row.user_id, row.scopes.split(' '), now, row.application_id);
  });
}

/** RFC 7009: revoking an unknown token is not an error. */
export async function revoke(ctx: ServiceContext, token: string | undefined): Promise<void> {
  if (!token) return;
  const d = digest(token);
  await ctx.db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: ctx.now().toISOString() })
    .where((eb) => eb.or([eb('token_digest', '=', d), eb('refresh_token_digest', '=', d)]))
    .where('revoked_at', 'is', null)
    .execute();
}

/** Seconds an access token has left (never below 0), or null for a token that does not expire. */
export function secondsLeft(row: OauthAccessTokenRow, now: Date): number | null {
  if (row.expires_in === null) return null;
  return Math.max(0, Math.floor(Date.parse(row.created_at) / 1000) + row.expires_in - Math.floor(now.getTime() / 1000));
}

/** An access token with the client id of the application it was issued to, if any. */
type InspectedToken = OauthAccessTokenRow & { application_uid: string | null };

/** An access token with why it may not be used (Doorkeeper checks revocation first). */
export async function inspectToken(
  ctx: ServiceContext,
  token: string | undefined,
): Promise<{ row: InspectedToken; problem: null } | { row: InspectedToken | undefined; problem: 'unknown' | 'revoked' | 'expired' }> {
  const row = token
    ? await ctx.db
        .selectFrom('oauth_access_tokens')
        .leftJoin('oauth_applications', 'oauth_applications.id', 'oauth_access_tokens.application_id')
        .selectAll('oauth_access_tokens')
        .select('oauth_applications.uid as application_uid')
        .where('token_digest', '=', digest(token))
        .executeTakeFirst()
    : undefined;
  if (!row) return { row, problem: 'unknown' };
  if (row.revoked_at) return { row, problem: 'revoked' };
  if (row.expires_in !== null && Date.parse(row.created_at) + row.expires_in * 1000 <= ctx.now().getTime()) return { row, problem: 'expired' };
  return { row, problem: null };
}
