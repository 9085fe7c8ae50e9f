// Personal access tokens and impersonation tokens: entities and parameters (the platform's
// 14.x–16.x shapes).
import { type Static, Type } from '@sinclair/typebox';
import { SCOPES } from '../../core/auth/scopes.ts';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, OneOf, Params } from '../../core/params.ts';
import { DateOnly, Entity, Nullable, Timestamp } from '../../core/schema.ts';

const token = {
  id: Type.Integer(),
  name: Type.String(),
  revoked: Type.Boolean(),
  created_at: Timestamp,
  scopes: Type.Array(Type.String()),
  user_id: Type.Integer(),
  last_used_at: Nullable(Timestamp),
  active: Type.Boolean(),
  expires_at: Nullable(DateOnly),
};

export const PersonalAccessTokenEntity = Entity(token);
/** Only the answer to a creation carries the secret. */
export const PersonalAccessTokenWithSecretEntity = Entity({ ...token, token: Type.String() });
export const ImpersonationTokenEntity = Entity({ ...token, impersonation: Type.Boolean() });
export const ImpersonationTokenWithSecretEntity = Entity({ ...token, impersonation: Type.Boolean(), token: Type.String() });

export type PersonalAccessToken = Static<typeof PersonalAccessTokenEntity>;

/** Personal tokens declare their scopes' values; a wrong one is a parameter error. */
export const CreatePersonalTokenBody = Params({
  name: Type.String(),
  scopes: CommaList(OneOf(SCOPES)),
  expires_at: Type.Optional(DateOnly),
});
export type CreatePersonalTokenBody = Static<typeof CreatePersonalTokenBody>;

/** Impersonation tokens leave their scopes to the model's validation. */
export const CreateImpersonationTokenBody = Params({
  name: Type.String(),
  scopes: Type.Optional(CommaList(Type.String())),
  expires_at: Type.Optional(DateOnly),
});
export type CreateImpersonationTokenBody = Static<typeof CreateImpersonationTokenBody>;

export const ListTokensQuery = Params({
  ...PageParams,
  user_id: Type.Optional(Type.Integer()),
  state: Type.Optional(OneOf(['active', 'inactive'])),
  revoked: Type.Optional(Bool()),
  search: Type.Optional(Type.String()),
  created_before: Type.Optional(Type.String({ format: 'date-time' })),
  created_after: Type.Optional(Type.String({ format: 'date-time' })),
  last_used_before: Type.Optional(Type.String({ format: 'date-time' })),
  last_used_after: Type.Optional(Type.String({ format: 'date-time' })),
  expires_before: Type.Optional(DateOnly),
  expires_after: Type.Optional(DateOnly),
});
export type ListTokensQuery = Static<typeof ListTokensQuery>;

export const TokenIdParams = Params({ id: Type.Integer() });
export const UserTokenParams = Params({ user_id: Type.Integer() });
export const ImpersonationTokenParams = Params({ user_id: Type.Integer(), impersonation_token_id: Type.Integer() });
export type ImpersonationTokenParams = Static<typeof ImpersonationTokenParams>;
export const ListImpersonationTokensQuery = Params({ ...PageParams, state: Type.Optional(OneOf(['all', 'active', 'inactive'], { default: 'all' })) });
export type ListImpersonationTokensQuery = Static<typeof ListImpersonationTokensQuery>;
