// OAuth applications (the platform's Applications API): the entities and the parameters.
import { type Static, Type } from '@sinclair/typebox';
import { Bool, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';

const applicationFields = {
  id: Type.Integer(),
  /** The OAuth client_id. */
  application_id: Type.String(),
  application_name: Type.String(),
  /** The redirect URIs, one per line. */
  callback_url: Type.String(),
  confidential: Type.Boolean(),
};
export const ApplicationEntity = Entity(applicationFields);
export type Application = Static<typeof ApplicationEntity>;
/** As created (or with a renewed secret): the client secret, shown this once. */
export const ApplicationWithSecretEntity = Entity({ ...applicationFields, secret: Type.String() });
export type ApplicationWithSecret = Static<typeof ApplicationWithSecretEntity>;

export const ApplicationParams = Params({ id: Type.Integer() });
export const CreateApplicationBody = Params({
  name: Type.String(),
  redirect_uri: Type.String(),
  /** Space-separated scope names. */
  scopes: Type.String({ 'x-blank': false }),
  confidential: Type.Optional(Bool()),
});
export type CreateApplicationBody = Static<typeof CreateApplicationBody>;
