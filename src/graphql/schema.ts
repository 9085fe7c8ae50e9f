// The GraphQL schema, code first: the core's root types (Query, Mutation) and the types every
// module builds on (Project, UserCore, connections), with the fields modules contribute merged in
// (contribution.ts says how).
import { GraphQLBoolean, type GraphQLFieldConfigMap, GraphQLID, GraphQLNonNull, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { accessToProject, findProjectByFullPath } from '../core/access/loaders.ts';
import { visibilityName } from '../core/access/levels.ts';
import { projectWebUrl } from '../domain/urls.ts';
import type { GraphqlContext } from './context.ts';
import type { GraphqlContribution, GraphqlProject } from './contribution.ts';
import { globalId } from './ids.ts';
import { TimeType, UserCoreType } from './types.ts';

/** Merges field maps, refusing a field two contributions both declare. */
function mergeFields<S>(owner: string, base: GraphQLFieldConfigMap<S, GraphqlContext>, parts: (GraphQLFieldConfigMap<S, GraphqlContext> | undefined)[]) {
  const merged = { ...base };
  for (const part of parts) {
    for (const [name, field] of Object.entries(part ?? {})) {
      if (name in merged) throw new Error(`GraphQL: ${owner}.${name} is declared twice`);
      merged[name] = field;
    }
  }
  return merged;
}

function projectType(contributions: readonly GraphqlContribution[]): GraphQLObjectType<GraphqlProject, GraphqlContext> {
  return new GraphQLObjectType<GraphqlProject, GraphqlContext>({
    name: 'Project',
    fields: () =>
      mergeFields<GraphqlProject>(
        'Project',
        {
          id: { type: new GraphQLNonNull(GraphQLID), description: 'ID of the project.', resolve: (p) => globalId('Project', p.row.id) },
          name: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.row.name },
          nameWithNamespace: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.row.name_with_namespace },
          path: { type: new GraphQLNonNull(GraphQLString), resolve: (p) => p.row.path },
          fullPath: { type: new GraphQLNonNull(GraphQLID), resolve: (p) => p.row.full_path },
          description: { type: GraphQLString, resolve: (p) => p.row.description || null },
          visibility: { type: GraphQLString, resolve: (p) => visibilityName(p.row.visibility_level) },
          archived: { type: GraphQLBoolean, resolve: (p) => Boolean(p.row.archived) },
          createdAt: { type: TimeType, resolve: (p) => p.row.created_at },
          lastActivityAt: { type: TimeType, resolve: (p) => p.row.last_activity_at },
          webUrl: { type: GraphQLString, resolve: (p, _args, ctx) => projectWebUrl(ctx.deps.config.externalUrl, p.row) },
        },
        contributions.map((c) => c.projectFields?.()),
      ),
  });
}

/** The project at this full path when the caller may read it; null otherwise, as the platform answers. */
async function readableProject(ctx: GraphqlContext, fullPath: string): Promise<GraphqlProject | null> {
  const found = await findProjectByFullPath(ctx.deps.db, fullPath);
  if (!found) return null;
  const { access, can } = await accessToProject(ctx.request, found.row);
  if (!can.has('read_project')) return null;
  return { ...found, access, can };
}

/** The schema with every contribution merged in; built once, when the application starts. */
export function buildGraphqlSchema(contributions: readonly GraphqlContribution[]): GraphQLSchema {
  const project = projectType(contributions);
  const query = new GraphQLObjectType<unknown, GraphqlContext>({
    name: 'Query',
    fields: () =>
      mergeFields<unknown>(
        'Query',
        {
          project: {
            type: project,
            description: 'Find a project.',
            args: { fullPath: { type: new GraphQLNonNull(GraphQLID), description: 'Full path of the project, for example, `gitlab-org/gitlab-foss`.' } },
            resolve: (_root, args: { fullPath: string }, ctx) => readableProject(ctx, args.fullPath),
          },
          currentUser: { type: UserCoreType, description: 'Get information about current user.', resolve: (_root, _args, ctx) => ctx.actor?.user ?? null },
        },
        contributions.map((c) => c.queryFields?.()),
      ),
  });
  const mutationFields = mergeFields<unknown>('Mutation', {}, contributions.map((c) => c.mutationFields?.()));
  const mutation = Object.keys(mutationFields).length > 0 ? new GraphQLObjectType<unknown, GraphqlContext>({ name: 'Mutation', fields: mutationFields }) : undefined;
  return new GraphQLSchema({ query, mutation });
}
