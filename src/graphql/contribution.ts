// How a module adds to the GraphQL schema. A module declares one contribution (in its
// `<module>.graphql.ts`, offered through its index.ts) and the application lists it where it
// builds the schema (src/app.ts); the core (schema.ts) owns Query, Project and Mutation and merges
// every contribution's fields into them:
//
//   export const sentryGraphql: GraphqlContribution = {
//     projectFields: () => ({ sentryErrors: { type: SentryErrorsType, resolve: (project, args, ctx) => … } }),
//     queryFields: () => ({ … }),
//     mutationFields: () => ({ myThingCreate: { type: …, args: { input: … }, resolve: (_root, args, ctx) => … } }),
//   };
//
// - Fields are graphql-js field configs. They are thunks, so a module's types may refer to the
//   core's (ProjectType, connectionType) without an import cycle at load time.
// - A project field's parent is the GraphqlProject the `project(fullPath:)` query loaded: the row,
//   its namespace and what the caller may do to it (`can`), read access already checked.
// - Resolvers receive the GraphqlContext (context.ts): the actor, the application's deps and the
//   request. A mutation takes its service context from mutationContext(ctx), which refuses callers
//   who may not write. A field the caller may not read resolves to null (or throws
//   resourceNotAvailable() where the platform answers with that error).
// - Two contributions naming the same field is a mistake the schema builder refuses at start.
import type { GraphQLFieldConfigMap } from 'graphql';
import type { LoadedProject } from '../core/access/loaders.ts';
import type { GraphqlContext } from './context.ts';

/** A project as project fields see it: loaded, readable by the caller, with the caller's abilities. */
export type GraphqlProject = LoadedProject;

export interface GraphqlContribution {
  /** Fields of the `Project` type. */
  projectFields?: () => GraphQLFieldConfigMap<GraphqlProject, GraphqlContext>;
  /** Fields of the root `Query` type. */
  queryFields?: () => GraphQLFieldConfigMap<unknown, GraphqlContext>;
  /** Fields of the root `Mutation` type. */
  mutationFields?: () => GraphQLFieldConfigMap<unknown, GraphqlContext>;
}
