// Token scopes, what a route asks of authentication, and the rule that decides whether a token
// may call a route.

/** The scopes a personal, impersonation or OAuth token may carry (the platform's 16.x set). */
export const SCOPES = [
  'api',
  'read_api',
  'read_user',
  'create_runner',
  'k8s_proxy',
  'read_repository',
  'write_repository',
  'read_registry',
  'write_registry',
  'sudo',
  'admin_mode',
] as const;
export type Scope = (typeof SCOPES)[number];
export const ADMIN_ONLY_SCOPES: readonly Scope[] = ['sudo', 'admin_mode'];
/** OpenID Connect scopes, which only OAuth clients ask for. */
export const OAUTH_ONLY_SCOPES = ['openid', 'profile', 'email'] as const;

/** What a route asks of authentication, set through the route's `config`. */
export interface RouteAuth {
  /**
   * 'required' answers 401 to anonymous callers before parameters are validated; 'optional' lets
   * them through, for the route's abilities to decide; 'none' skips API authentication altogether
   * (health checks, OAuth endpoints, the sign-in page, git over HTTP). Every route says which
   * (core/deps.ts makes it required in a route's config).
   */
  auth?: 'required' | 'optional' | 'none';
  /** Scopes accepted on reads beyond api/read_api (e.g. read_user). */
  scopes?: readonly Scope[];
  /** Every scope is accepted, for every method (a token reading or revoking itself). */
  anyScope?: boolean;
  /** Whether JOB-TOKEN / job_token credentials are accepted on this route. */
  jobToken?: boolean;
}

export const isReadMethod = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * The scopes that let a token call this route: `api` always, `read_api` on reads, and the route's
 * own extras (e.g. `read_user` on user reads) which, like the platform's, apply to reads only.
 */
export function acceptedScopes(method: string, route: RouteAuth): readonly string[] {
  if (route.anyScope) return SCOPES;
  if (!isReadMethod(method)) return ['api'];
  return [...(route.scopes ?? []), 'api', 'read_api'];
}

/**
 * The scopes named in an insufficient_scope answer: every scope registered for the route, whatever
 * the method, the route's own first, as the platform lists them.
 */
export function registeredScopes(route: RouteAuth): string[] {
  return [...new Set([...(route.scopes ?? []), 'api', 'read_api'])];
}

export function hasAnyScope(tokenScopes: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((s) => tokenScopes.includes(s));
}
