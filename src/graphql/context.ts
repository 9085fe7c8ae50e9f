// What every resolver receives as its context: the request's actor and the application, with what
// the credential allows (a read_api token reads, only an api token or a session writes).
import type { FastifyRequest } from 'fastify';
import type { Actor } from '../core/auth/actor.ts';
import { type ServiceContext, serviceContext } from '../core/context.ts';
import type { Deps } from '../core/deps.ts';
import { GraphQLError } from 'graphql';

export interface GraphqlContext {
  readonly deps: Deps;
  readonly request: FastifyRequest;
  readonly actor: Actor | null;
  /** False for a token without the `api` scope: mutations refuse it. */
  readonly canWrite: boolean;
}

/** The platform's answer to a field the caller may not see or change (it never says which). */
export const RESOURCE_NOT_AVAILABLE = "The resource that you are attempting to access does not exist or you don't have permission to perform this action";

export function resourceNotAvailable(): GraphQLError {
  return new GraphQLError(RESOURCE_NOT_AVAILABLE);
}

/** The service context of a mutation: a signed-in actor whose credential may write, or the refusal. */
export function mutationContext(ctx: GraphqlContext): ServiceContext {
  if (!ctx.actor || !ctx.canWrite) throw resourceNotAvailable();
  return serviceContext(ctx.request);
}
