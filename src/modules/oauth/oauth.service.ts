// OAuth 2 tokens for the password and refresh_token grants. Access tokens live two hours.
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import type { DB, OauthAccessTokenRow, UserRow } from '../../db/schema.ts';
import { SCOPES } from '../../core/auth/scopes.ts';
import { digest, generateToken, verifyPassword } from '../../core/auth/secrets.ts';

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

export const invalidGrant = () =>
  new OauthError(
    'invalid_grant',
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
  );

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
}

function parseScope(raw: string | undefined): string[] {
  const scopes = (raw ?? 'api').split(/\s+/).filter(Boolean);
  const known = new Set<string>(SCOPES);
  if (scopes.length === 0 || scopes.some((s) => !known.has(s))) {
    throw new OauthError('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
  }
  return [...new Set(scopes)];
}

async function issue(db: Kysely<DB>, userId: number, scopes: string[], now: Date): Promise<TokenResponse> {
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

async function findLogin(db: Kysely<DB>, login: string): Promise<UserRow | undefined> {
  const lower = login.toLowerCase();
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb.or([eb(eb.fn('lower', ['username']), '=', lower), eb(eb.fn('lower', ['email']), '=', lower)]))
    .executeTakeFirst();
}

/** A user who may sign in with this login (username or email) and password, or undefined. */
export async function authenticatePassword(db: Kysely<DB>, login: string, password: string): Promise<UserRow | undefined> {
  const user = await findLogin(db, login);
  if (!user || user.user_type !== 'human') {
    // Spend the same time whether or not the login exists.
    await verifyPassword(password, null);
    return undefined;
  }
  return (await verifyPassword(password, user.encrypted_password)) ? user : undefined;
}

export async function passwordGrant(db: Kysely<DB>, _config: Config, p: { username?: string; password?: string; scope?: string }, now: Date) {
  if (!p.username) throw new OauthError('invalid_request', 'Missing required parameter: username.');
  if (!p.password) throw new OauthError('invalid_request', 'Missing required parameter: password.');
  const scopes = parseScope(p.scope);
  const user = await authenticatePassword(db, p.username, p.password);
  if (!user || user.state !== 'active') throw invalidGrant();
  return issue(db, user.id, scopes, now);
}

/** Exchanges a refresh token for a new pair; the old access token is revoked. */
export async function refreshGrant(db: Kysely<DB>, p: { refresh_token?: string }, now: Date) {
  if (!p.refresh_token) throw new OauthError('invalid_request', 'Missing required parameter: refresh_token.');
  const row = await db.selectFrom('oauth_access_tokens').selectAll().where('refresh_token_digest', '=', digest(p.refresh_token)).executeTakeFirst();
  if (!row || row.revoked_at) throw invalidGrant();
  const user = await db.selectFrom('users').select(['id', 'state']).where('id', '=', row.user_id).executeTakeFirst();
  if (!user || user.state !== 'active') throw invalidGrant();
  return db.transaction().execute(async (trx) => {
    const revoked = await trx
      .updateTable('oauth_access_tokens')
      .set({ revoked_at: now.toISOString(), refresh_token_digest: null })
      .where('id', '=', row.id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    // Two refreshes racing on one token: only the first gets a new pair.
    if (Number(revoked.numUpdatedRows) === 0) throw invalidGrant();
    return issue(trx, row.user_id, row.scopes.split(' '), now);
  });
}

/** RFC 7009: revoking an unknown token is not an error. */
export async function revoke(db: Kysely<DB>, token: string | undefined, now: Date): Promise<void> {
  if (!token) return;
  const d = digest(token);
  await db
    .updateTable('oauth_access_tokens')
    .set({ revoked_at: now.toISOString() })
    .where((eb) => eb.or([eb('token_digest', '=', d), eb('refresh_token_digest', '=', d)]))
    .where('revoked_at', 'is', null)
    .execute();
}

export async function findActiveToken(db: Kysely<DB>, token: string, now: Date): Promise<OauthAccessTokenRow | undefined> {
  const row = await db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', digest(token)).executeTakeFirst();
  if (!row || row.revoked_at) return undefined;
  if (row.expires_in !== null && Date.parse(row.created_at) + row.expires_in * 1000 <= now.getTime()) return undefined;
  return row;
}
