// Who is making a request, after every credential and sudo has been resolved.
import type { UserRow } from '../../db/schema.ts';

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

/** The actor of work done later on a user's behalf (a pipeline of their push): their own rights, no token. */
export function actingUser(user: UserRow): Actor {
  return { user, isAdmin: user.admin, via: 'session', scopes: [], tokenId: null, impersonation: false, sudoBy: null, jobId: null };
}
