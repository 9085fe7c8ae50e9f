// Global IDs as the platform writes them: `gid://gitlab/<Type>/<id>`. Clients read and send them
// verbatim, so the `gitlab` authority stays whatever the product is called.
import { GraphQLError } from 'graphql';

const GID = /^gid:\/\/gitlab\/([A-Za-z][\w:]*)\/(\d{1,15})$/;

/** The global ID of a record of this model. */
export function globalId(model: string, id: number | string): string {
  return `gid://gitlab/${model}/${id}`;
}

/**
 * The record id inside a global ID of this model. An ID that is not a global ID, or names another
 * model, is refused with the platform's wording (an argument error of the query).
 */
export function parseGlobalId(value: string, model: string): number {
  const match = GID.exec(value);
  if (!match) throw new GraphQLError(`"${value}" is not a valid Global ID`);
  if (match[1] !== model) throw new GraphQLError(`"${value}" does not represent an instance of ${model}`);
  return Number(match[2]);
}
