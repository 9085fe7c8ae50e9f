// Global IDs as the platform writes them: `gid://gitlab/<Type>/<id>`. Clients read and send them
// verbatim, so the `gitlab` authority stays whatever the product is called.
import { GraphQLError, GraphQLScalarType, Kind, type ValueNode, print } from 'graphql';

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

/**
 * A `<Name>` scalar of global IDs of one model, as the platform types its ID arguments: a value
 * that is not a global ID of that model is refused where it is read (a variable's problem, or an
 * argument's invalid value), in the platform's words. Resolvers receive the ID as given.
 */
export function globalIdScalar(name: string, model: string): GraphQLScalarType<string, string> {
  // A literal's refusal names its node, so that the document's fault says where the value is.
  const check = (value: unknown, node?: ValueNode): string => {
    if (typeof value !== 'string') throw new GraphQLError(`${JSON.stringify(value)} is not a valid Global ID`, { nodes: node });
    try {
      parseGlobalId(value, model);
    } catch (error) {
      if (node && error instanceof GraphQLError) throw new GraphQLError(error.message, { nodes: node });
      throw error;
    }
    return value;
  };
  return new GraphQLScalarType<string, string>({
    name,
    description: `A \`${name}\` is a global ID. It is encoded as a string.`,
    serialize: (value) => String(value),
    parseValue: check,
    parseLiteral: (ast) => check(ast.kind === Kind.STRING ? ast.value : print(ast), ast),
  });
}
