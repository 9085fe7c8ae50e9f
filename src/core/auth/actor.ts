// Who is making a request, after every credential and sudo has been resolved.
import type { UserRow } from '../../db/schema.ts';
import type { Scope } from './scopes.ts';

/** 'password': a login and password, which only git clients may send (HTTP Basic). */
export type CredentialKind = 'personal_access_token' | 'oauth' | 'session' | 'job_token' | 'password';

export interface Actor {
  /** The user the request acts as (the sudo target when sudo is used). */
  readonly user: UserRow;
  /** Administrator rights in effect (admin mode taken into account). */
  readonly isAdmin: boolean;
  readonly via: CredentialKind;
  /** Scopes of the token used; empty for sessions and job tokens. */
  readonly scopes: readonly string[];
  /** personal_access_tokens.id or oauth_access_tokens.id of the credential, when it is a token. */
  readonly tokenId: number | null;
  readonly impersonation: boolean;
  /** The administrator who used sudo, when the request runs as someone else. */
  readonly sudoBy: UserRow | null;
  /** The job whose token authenticated the request. */
  readonly jobId: number | null;
}

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
