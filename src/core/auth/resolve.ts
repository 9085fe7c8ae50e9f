// Resolves the request's credentials to an Actor, in the platform's order of precedence:
// on routes that accept job tokens, a job token sent as the bearer value → OAuth token
// (access_token, Bearer, bearer_token) → personal token (private_token, PRIVATE-TOKEN, then the
// bearer value) → job token (job_token, token, JOB-TOKEN; only on routes that accept it) → the
// session cookie (reads, or writes carrying the session's CSRF token).
import type { Kysely } from 'kysely';
import type { Config } from '../../config.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, UserRow } from '../../db/schema.ts';
import {
  DomainError,
  IMPERSONATION_DISABLED,
  TOKEN_EXPIRED,
  TOKEN_REVOKED,
  apiError,
  forbidden,
  insufficientScope,
  invalidToken,
  notFound,
  unauthorized,
} from '../errors.ts';
import type { Actor, CredentialKind } from './actor.ts';
import { JOB_TOKEN_PREFIX, type JobTokenResolver, type JobTokenResult } from './job-tokens.ts';
import { type RouteAuth, acceptedScopes, hasAnyScope, registeredScopes } from './scopes.ts';
import { digest, safeEqual } from './secrets.ts';

export const SESSION_COOKIE = '_service_session';

export interface CredentialSource {
  method: string;
  headers: Record<string, string | string[] | undefined>;
  /** Query and body parameters, merged. */
  params: Record<string, unknown>;
  cookies: Record<string, string | undefined>;
}

/** The instance's settings that decide who may act, and how (from the application settings). */
export interface AccessPolicy {
  /** admin_mode: an administrator's web session acts as administrator only once admin mode is entered. */
  adminMode: boolean;
  /** enforce_terms: users who have not accepted the terms of service may use neither the API nor git. */
  enforceTerms: boolean;
}

/** Reads the policy (cached by its owner: it is asked on every request). */
export type AccessPolicyReader = (db: Kysely<DB>) => Promise<AccessPolicy>;

export interface ResolveDeps {
  db: Kysely<DB>;
  config: Config;
  jobTokens: JobTokenResolver;
  now?: () => Date;
  /** Unset: neither admin mode nor terms apply. */
  accessPolicy?: AccessPolicyReader;
}

const NO_POLICY: AccessPolicy = { adminMode: false, enforceTerms: false };

/**
 * Why a user who has not accepted the enforced terms may not act, in the platform's words; null
 * when they may. Project bots accept nothing: they are exempt.
 */
export function termsRefusal(policy: AccessPolicy, user: UserRow): string | null {
  if (!policy.enforceTerms || user.terms_accepted_at !== null || user.user_type === 'project_bot') return null;
  return `You (@${user.username}) must accept the Terms of Service in order to perform this action. Please access GitLab from a web browser to accept these terms.`;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const header = (src: CredentialSource, name: string): string | undefined => {
  const v = src.headers[name];
  return str(Array.isArray(v) ? v[0] : v);
};

function bearerValue(src: CredentialSource): string | undefined {
  const auth = header(src, 'authorization');
  const match = auth && /^Bearer\s+(\S+)\s*$/i.exec(auth);
  return match ? match[1] : undefined;
}

function today(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function parseScopes(json: string): string[] {
  try {
    const value = JSON.parse(json);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

async function userById(db: Kysely<DB>, id: number): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

interface Resolved {
  user: UserRow;
  via: CredentialKind;
  scopes: string[];
  tokenId: number | null;
  impersonation: boolean;
  jobId: number | null;
  /** A web session's admin mode: until when it lasts (null: not entered). */
  adminModeUntil?: string | null;
}

// Like the platform's token validation, expiry is checked before revocation.
async function fromOauth(deps: ResolveDeps, token: string, now: Date): Promise<Resolved | null> {
  const row = await deps.db.selectFrom('oauth_access_tokens').selectAll().where('token_digest', '=', digest(token)).executeTakeFirst();
  if (!row) return null;
  if (row.expires_in !== null && Date.parse(row.created_at) + row.expires_in * 1000 <= now.getTime()) throw invalidToken(TOKEN_EXPIRED);
  if (row.revoked_at) throw invalidToken(TOKEN_REVOKED);
  const user = await userById(deps.db, row.user_id);
  if (!user) throw unauthorized();
  return { user, via: 'oauth', scopes: row.scopes.split(' ').filter(Boolean), tokenId: row.id, impersonation: false, jobId: null };
}

const personalTokenRows = prepared((db, tokenDigest: string) =>
  db
    .selectFrom('personal_access_tokens as t')
    .innerJoin('users', 'users.id', 't.user_id')
    .selectAll('users')
    .select(['t.id as t_id', 't.scopes as t_scopes', 't.revoked as t_revoked', 't.expires_at as t_expires_at', 't.impersonation as t_impersonation', 't.last_used_at as t_last_used_at'])
    .where('t.token_digest', '=', tokenDigest),
);

/** One query (prepared: this runs on nearly every request) finds the token and its user. */
async function fromPersonalToken(deps: ResolveDeps, token: string, now: Date): Promise<Resolved> {
  const [row] = await personalTokenRows(deps.db, digest(token));
  if (!row) throw unauthorized();
  const { t_id, t_scopes, t_revoked, t_expires_at, t_impersonation, t_last_used_at, ...user } = row;
  if (t_expires_at !== null && t_expires_at <= today(now)) throw invalidToken(TOKEN_EXPIRED);
  if (t_revoked) throw invalidToken(TOKEN_REVOKED);
  if (t_impersonation && !deps.config.impersonationEnabled) throw invalidToken(IMPERSONATION_DISABLED);
  await touchToken(deps, t_id, t_last_used_at, now);
  return { user, via: 'personal_access_token', scopes: parseScopes(t_scopes), tokenId: t_id, impersonation: t_impersonation, jobId: null };
}

/** last_used_at is kept to within ten minutes, so a busy token costs one write per ten minutes. */
async function touchToken(deps: ResolveDeps, id: number, lastUsedAt: string | null, now: Date): Promise<void> {
  if (lastUsedAt && now.getTime() - Date.parse(lastUsedAt) < 10 * 60 * 1000) return;
  await deps.db.updateTable('personal_access_tokens').set({ last_used_at: now.toISOString() }).where('id', '=', id).execute();
}

function fromJob(job: NonNullable<JobTokenResult>): Resolved {
  return { user: job.user, via: 'job_token', scopes: [], tokenId: null, impersonation: false, jobId: job.jobId };
}

async function fromSession(deps: ResolveDeps, src: CredentialSource, now: Date): Promise<Resolved | null> {
  const cookie = src.cookies[SESSION_COOKIE];
  if (!cookie) return null;
  const row = await deps.db.selectFrom('web_sessions').selectAll().where('session_digest', '=', digest(cookie)).executeTakeFirst();
  if (!row || row.expires_at <= now.toISOString()) return null;
  // Writes through a session need the session's CSRF token, so that other sites cannot forge them.
  if (src.method !== 'GET' && src.method !== 'HEAD') {
    const csrf = header(src, 'x-csrf-token');
    if (!csrf || !safeEqual(csrf, row.csrf_token)) return null;
  }
  const user = await userById(deps.db, row.user_id);
  return user ? { user, via: 'session', scopes: [], tokenId: null, impersonation: false, jobId: null, adminModeUntil: row.admin_mode_until } : null;
}

async function findCredentials(deps: ResolveDeps, src: CredentialSource, route: RouteAuth, now: Date): Promise<Resolved | null> {
  const bearer = str(src.params.access_token) ?? bearerValue(src) ?? str(src.params.bearer_token);
  if (bearer && route.jobToken) {
    const job = await deps.jobTokens(deps.db, bearer);
    if (job) return fromJob(job);
  }
  if (bearer) {
    const oauth = await fromOauth(deps, bearer, now);
    if (oauth) return oauth;
  }
  const personal = str(src.params.private_token) ?? header(src, 'private-token') ?? bearer;
  // A runner may send its job token as PRIVATE-TOKEN; that value is left to the job-token lookup.
  if (personal && !personal.startsWith(JOB_TOKEN_PREFIX)) return fromPersonalToken(deps, personal, now);
  if (route.jobToken) {
    const jobToken = str(src.params.job_token) ?? str(src.params.token) ?? header(src, 'job-token');
    if (jobToken) {
      const job = await deps.jobTokens(deps.db, jobToken);
      if (!job) throw unauthorized();
      return fromJob(job);
    }
  }
  return fromSession(deps, src, now);
}

/** Why a signed-in user may not use the API, in the platform's words; null when they may. */
export function accessDeniedReason(config: Config, user: UserRow): string | null {
  switch (user.state) {
    case 'active':
      return null;
    case 'blocked_pending_approval':
      return 'Your account is pending approval from your administrator and hence blocked.';
    case 'deactivated':
      return `Your account has been deactivated by your administrator. Please log back in from a web browser to reactivate your account at ${config.externalUrl}`;
    default:
      return 'Your account has been blocked.';
  }
}

/**
 * Whether the credential acts as administrator. The admin_mode setting concerns web sessions only
 * (14.x: tokens bypass it): a session acts as administrator while its admin mode lasts. The
 * QUARRY_ADMIN_MODE configuration concerns tokens (later releases' behaviour): they need the
 * admin_mode scope.
 */
function effectiveAdmin(deps: ResolveDeps, policy: AccessPolicy, r: Resolved, now: Date): boolean {
  if (!r.user.admin) return false;
  if (r.via === 'session') return !policy.adminMode || (r.adminModeUntil != null && r.adminModeUntil > now.toISOString());
  if (!deps.config.adminMode) return true;
  return r.scopes.includes('admin_mode');
}

async function findSudoTarget(db: Kysely<DB>, value: string): Promise<UserRow | undefined> {
  const q = db.selectFrom('users').selectAll();
  if (/^\d+$/.test(value)) {
    // An id too large to be stored matches no one.
    return Number.isSafeInteger(Number(value)) ? q.where('id', '=', Number(value)).executeTakeFirst() : undefined;
  }
  return q.where((eb) => eb(eb.fn('lower', ['username']), '=', value.toLowerCase())).executeTakeFirst();
}

/** Resolves the actor of a request, or null for an anonymous one; throws the platform's errors. */
export async function resolveActor(deps: ResolveDeps, src: CredentialSource, route: RouteAuth): Promise<Actor | null> {
  const now = deps.now?.() ?? new Date();
  const found = await findCredentials(deps, src, route, now);
  const sudo = str(src.params.sudo) ?? header(src, 'sudo');

  if (!found) {
    if (sudo !== undefined || route.auth === 'required') throw unauthorized();
    return null;
  }
  const denied = accessDeniedReason(deps.config, found.user);
  if (denied) throw forbidden(denied);
  const policy = deps.accessPolicy ? await deps.accessPolicy(deps.db) : NO_POLICY;
  const unaccepted = termsRefusal(policy, found.user);
  if (unaccepted) throw forbidden(unaccepted);

  const isAdmin = effectiveAdmin(deps, policy, found, now);
  const tokenBased = found.via === 'personal_access_token' || found.via === 'oauth';
  const base: Actor = { ...found, isAdmin, sudoBy: null };

  if (sudo === undefined) {
    if (tokenBased && !hasAnyScope(found.scopes, acceptedScopes(src.method, route))) throw insufficientScope(registeredScopes(route));
    await recordActivity(deps, found.user, now);
    return base;
  }
  // The checks, and their order, of the platform's sudo.
  if (!isAdmin) throw forbidden('Must be admin to use sudo');
  if (!tokenBased) throw forbidden('Must be authenticated using an OAuth or personal access token to use sudo');
  if (!found.scopes.includes('sudo')) throw insufficientScope(['sudo']);
  const target = await findSudoTarget(deps.db, sudo);
  if (!target) throw notFound(`User with ID or username '${sudo}'`);
  await recordActivity(deps, target, now);
  return { ...base, user: target, isAdmin: target.admin, sudoBy: found.user };
}

/** last_activity_on moves at most once a day per user. */
async function recordActivity(deps: ResolveDeps, user: UserRow, now: Date): Promise<void> {
  const day = today(now);
  if (user.last_activity_on === day) return;
  await deps.db.updateTable('users').set({ last_activity_on: day }).where('id', '=', user.id).execute();
}

// ---- Git clients: HTTP Basic ----------------------------------------------------------------------

export interface BasicCredentials {
  login: string;
  password: string;
}

/** The login and password of an `Authorization: Basic` header value; null for anything else. */
export function basicCredentials(authorization: string | undefined): BasicCredentials | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Checks a login (username or email) and password; modules own users, so the caller brings it. */
export type PasswordCheck = (login: string, password: string) => Promise<UserRow | undefined>;

/** The platform's answer to a password of a user with two-factor authentication, who must use a token. */
const gitTokenRequired = (config: Config) =>
  "HTTP Basic: Access denied\nYou must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP.\n" +
  `You can generate one at ${config.externalUrl}/-/profile/personal_access_tokens`;

/** A credential that does not resolve is no credential: the caller answers them all alike. */
async function quietly(lookup: Promise<Resolved | null>): Promise<Resolved | null> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/**
 * The actor of a git client's Basic credentials, tried in the platform's order
 * (Gitlab::Auth.find_for_git_client): a job token for the login `gitlab-ci-token`, an OAuth token
 * for `oauth2`, then a personal, project or impersonation token as the password whatever the
 * login, then the login's own password. Null when nothing matches or the user may not sign in
 * (blocked); throws a 401 DomainError for the password of a user with two-factor authentication
 * and a 403 for a deactivated account. Administrators act as such: git bypasses admin mode.
 * `checkPassword` null: the instance takes no passwords over git, only tokens.
 */
export async function resolveGitClient(deps: ResolveDeps, credentials: BasicCredentials, checkPassword: PasswordCheck | null): Promise<Actor | null> {
  const now = deps.now?.() ?? new Date();
  const { login, password } = credentials;
  if (password === '') return null;
  let found: Resolved | null = null;
  if (login === 'gitlab-ci-token') {
    const job = await deps.jobTokens(deps.db, password);
    if (job) found = fromJob(job);
  }
  if (!found && login === 'oauth2') found = await quietly(fromOauth(deps, password, now));
  if (!found) found = await quietly(fromPersonalToken(deps, password, now));
  // With passwords off for git (password_authentication_enabled_for_git), a credential that is no
  // token is answered with the advice to use one (the platform's MissingPersonalAccessTokenError).
  if (!found && checkPassword === null) throw apiError(401, gitTokenRequired(deps.config));
  if (!found && checkPassword !== null) {
    const user = await checkPassword(login, password);
    if (user?.two_factor_enabled) throw apiError(401, gitTokenRequired(deps.config));
    if (user) found = { user, via: 'password', scopes: [], tokenId: null, impersonation: false, jobId: null };
  }
  if (!found) return null;
  if (found.user.state === 'deactivated') throw apiError(403, accessDeniedReason(deps.config, found.user) as string);
  if (found.user.state !== 'active') return null;
  const unaccepted = termsRefusal(deps.accessPolicy ? await deps.accessPolicy(deps.db) : NO_POLICY, found.user);
  if (unaccepted) throw apiError(403, unaccepted);
  await recordActivity(deps, found.user, now);
  return { ...found, isAdmin: found.user.admin, sudoBy: null };
}
