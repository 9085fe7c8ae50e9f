// Types of the GraphQL schema that modules share: the platform's scalars and the user as every
// type names one.
import { GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLScalarType, GraphQLString } from 'graphql';
import type { UserRow } from '../db/schema.ts';
import { userWebUrl } from '../domain/urls.ts';
import type { GraphqlContext } from './context.ts';
import { globalId } from './ids.ts';

/** The platform's `Time`: an ISO 8601 timestamp, written as the database holds it. */
export const TimeType = new GraphQLScalarType<string, string>({
  name: 'Time',
  description: 'Time represented in ISO 8601.',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: (value) => {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw new TypeError('Time must be an ISO 8601 string');
    return new Date(value).toISOString();
  },
});

export const UserCoreType = new GraphQLObjectType<UserRow, GraphqlContext>({
  name: 'UserCore',
  description: 'Core representation of a user.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID), resolve: (user) => globalId('User', user.id) },
    username: { type: new GraphQLNonNull(GraphQLString) },
    name: { type: new GraphQLNonNull(GraphQLString) },
    state: { type: new GraphQLNonNull(GraphQLString) },
    publicEmail: { type: GraphQLString, resolve: (user) => user.public_email || null },
    webUrl: { type: new GraphQLNonNull(GraphQLString), resolve: (user, _args, ctx) => userWebUrl(ctx.deps.config.externalUrl, user.username) },
  },
});
