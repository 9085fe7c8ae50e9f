// Table types. Columns keep the wire's snake_case. Timestamps are ISO 8601 UTC text with
// milliseconds and dates are YYYY-MM-DD text, in both dialects, so they sort and compare as text.
// Booleans are real booleans in PostgreSQL and 0/1 in SQLite: read them through `Boolean()`.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export type Bool = boolean | number;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  name: string;
  email: string;
  encrypted_password: string | null;
  state: string;
  admin: Bool;
  external: Bool;
  user_type: string;
  bio: string;
  location: string;
  public_email: string | null;
  commit_email: string | null;
  skype: string;
  linkedin: string;
  twitter: string;
  website_url: string;
  organization: string;
  job_title: string;
  note: string | null;
  private_profile: Bool;
  projects_limit: number;
  can_create_group: Bool;
  theme_id: number;
  color_scheme_id: number;
  two_factor_enabled: Bool;
  confirmed_at: string | null;
  password_expires_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_sign_in_ip: string | null;
  current_sign_in_ip: string | null;
  sign_in_count: number;
  last_activity_on: string | null;
  created_by_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface IdentitiesTable {
  id: Generated<number>;
  user_id: number;
  provider: string;
  extern_uid: string;
  created_at: string;
}

export interface UserCustomAttributesTable {
  id: Generated<number>;
  user_id: number;
  key: string;
  value: string;
  created_at: string;
  updated_at: string;
}

export interface PersonalAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  token_digest: string;
  /** JSON array of scope names. */
  scopes: string;
  impersonation: Bool;
  revoked: Bool;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface OauthAccessTokensTable {
  id: Generated<number>;
  user_id: number;
  token_digest: string;
  refresh_token_digest: string | null;
  /** Space-separated scope names, as OAuth writes them. */
  scopes: string;
  expires_in: number | null;
  revoked_at: string | null;
  created_at: string;
}

export interface WebSessionsTable {
  id: Generated<number>;
  user_id: number;
  session_digest: string;
  csrf_token: string;
  expires_at: string;
  created_at: string;
}

export interface DB {
  users: UsersTable;
  identities: IdentitiesTable;
  user_custom_attributes: UserCustomAttributesTable;
  personal_access_tokens: PersonalAccessTokensTable;
  oauth_access_tokens: OauthAccessTokensTable;
  web_sessions: WebSessionsTable;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type IdentityRow = Selectable<IdentitiesTable>;
export type PersonalAccessTokenRow = Selectable<PersonalAccessTokensTable>;
export type OauthAccessTokenRow = Selectable<OauthAccessTokensTable>;
