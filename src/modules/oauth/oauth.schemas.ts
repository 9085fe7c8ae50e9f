// OAuth 2 answers, in Doorkeeper's shapes (the platform's OAuth provider).
import { type Static, Type } from '@sinclair/typebox';
import { Entity, Nullable } from '../../core/schema.ts';

/** POST /oauth/token. created_at is in Unix seconds. */
export const OauthTokenEntity = Entity({
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  scope: Type.String(),
  created_at: Type.Integer(),
});
export type OauthToken = Static<typeof OauthTokenEntity>;

/** GET /oauth/token/info: Doorkeeper's body plus the platform's `scopes` and `expires_in_seconds` aliases. */
export const OauthTokenInfoEntity = Entity({
  resource_owner_id: Type.Integer(),
  scope: Type.Array(Type.String()),
  expires_in: Nullable(Type.Integer()),
  application: Entity({ uid: Nullable(Type.String()) }),
  created_at: Type.Integer(),
  scopes: Type.Array(Type.String()),
  expires_in_seconds: Nullable(Type.Integer()),
});
export type OauthTokenInfo = Static<typeof OauthTokenInfoEntity>;

/** Every OAuth failure: {"error": <code>, "error_description": <text>}. */
export const OauthErrorEntity = Entity({ error: Type.String(), error_description: Type.String() });
