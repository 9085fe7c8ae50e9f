// Project access tokens (release 14.x): a bot user per token, a member of the project, holding one
// personal access token. The entity is the personal token's plus the bot's access level.
import { type Static, Type } from '@sinclair/typebox';
import { ACCESS } from '../../core/access/levels.ts';
import { PageParams } from '../../core/pagination.ts';
import { CommaList, IdOrPath, Params } from '../../core/params.ts';
import { DateOnly, Entity } from '../../core/schema.ts';
import { PersonalAccessTokenEntity } from '../access-tokens/access-tokens.schemas.ts';

export const ProjectAccessTokenEntity = Entity({ ...PersonalAccessTokenEntity.properties, access_level: Type.Integer() });
/** Only the answer to a creation carries the secret. */
export const ProjectAccessTokenWithSecretEntity = Entity({ ...ProjectAccessTokenEntity.properties, token: Type.String() });
export type ProjectAccessToken = Static<typeof ProjectAccessTokenEntity>;

export const ProjectParams = Params({ id: IdOrPath });
/** The platform declares the token id as a string; one that is not a number finds nothing. */
export const TokenParams = Params({ id: IdOrPath, token_id: Type.String() });
export const ListProjectTokensQuery = Params({ ...PageParams });

/** Scopes and level are checked by the models behind the service, as the platform does. */
export const CreateProjectTokenBody = Params({
  name: Type.String(),
  scopes: CommaList(Type.String()),
  expires_at: Type.Optional(DateOnly),
  access_level: Type.Optional(Type.Integer({ default: ACCESS.MAINTAINER })),
});
export type CreateProjectTokenBody = Static<typeof CreateProjectTokenBody>;
