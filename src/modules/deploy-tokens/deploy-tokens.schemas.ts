// Deploy tokens (the platform's deploy_tokens API, 14.x): entities and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';

/** What a deploy token may be given, in the order the platform lists them. */
export const DEPLOY_TOKEN_SCOPES = ['read_repository', 'read_registry', 'write_registry', 'read_package_registry', 'write_package_registry'] as const;
export type DeployTokenScope = (typeof DEPLOY_TOKEN_SCOPES)[number];

export const DeployTokenEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  username: Type.String(),
  expires_at: Nullable(Timestamp),
  scopes: Type.Array(Literals(DEPLOY_TOKEN_SCOPES)),
  revoked: Type.Boolean(),
  expired: Type.Boolean(),
});
export type DeployToken = Static<typeof DeployTokenEntity>;

/** Only the answer to a creation carries the secret. */
export const DeployTokenWithTokenEntity = Entity({ ...DeployTokenEntity.properties, token: Type.String() });

export const OwnerParams = Params({ id: IdOrPath });
export const TokenParams = Params({ id: IdOrPath, token_id: Type.Integer() });

/** `active=true` keeps the tokens that are neither revoked nor expired. */
export const ListDeployTokensQuery = Params({ ...PageParams, active: Type.Optional(Bool()) });
export type ListDeployTokensQuery = Static<typeof ListDeployTokensQuery>;

export const CreateDeployTokenBody = Params({
  name: Type.String(),
  scopes: CommaList(OneOf(DEPLOY_TOKEN_SCOPES)),
  /** A date or a date and time; none means the token never expires. */
  expires_at: Type.Optional(Type.String()),
  /** Defaults to `gitlab+deploy-token-<id>`. */
  username: Type.Optional(Type.String()),
});
export type CreateDeployTokenBody = Static<typeof CreateDeployTokenBody>;
