// Token scopes and the rule that decides whether a token may call a route.

export const SCOPES = ['api', 'read_api', 'read_user', 'read_repository', 'write_repository', 'sudo', 'admin_mode'] as const;
export type Scope = (typeof SCOPES)[number];
export const ADMIN_ONLY_SCOPES: readonly Scope[] = ['sudo', 'admin_mode'];

export const isReadMethod = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * The scopes a route accepts for this request: `api` always, `read_api` for reads, and the route's
 * own extras (e.g. `read_user` on user reads) which, like the platform's, apply to reads only.
 */
export function acceptedScopes(method: string, extra: readonly Scope[] = []): Scope[] {
  if (!isReadMethod(method)) return ['api'];
  return ['api', 'read_api', ...extra.filter((s) => s !== 'api' && s !== 'read_api')];
}

export function hasAnyScope(tokenScopes: readonly string[], accepted: readonly string[]): boolean {
  return accepted.some((s) => tokenScopes.includes(s));
}
