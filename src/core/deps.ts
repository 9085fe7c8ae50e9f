// What the application is built from, and the request/instance decorations every route relies on.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Database } from '../db/database.ts';
import type { Actor } from './auth/actor.ts';
import type { RouteAuth } from './auth/scopes.ts';
import type { JobTokenResolver } from './auth/job-tokens.ts';
import type { AccessPolicyReader } from './auth/resolve.ts';
import type { BaseContext } from './context.ts';
import type { Throttle } from './rate-limit.ts';
import type { RouteContract } from './contract.ts';

/**
 * The application's context: what every service context holds, with the database it came from.
 * Services take a ServiceContext instead: serviceContext(req), or systemContext(deps).
 */
export interface Deps extends BaseContext {
  readonly database: Database;
  readonly jobTokens: JobTokenResolver;
  /** The instance's admin mode and terms, from the application settings. */
  readonly accessPolicy: AccessPolicyReader;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
    /** Request throttles and the failed-authentication ban (core/rate-limit.ts). */
    throttle: Throttle;
  }
  interface FastifyRequest {
    actor: Actor | null;
    /** Query and body parameters as received (body wins), for credentials and Link headers. */
    rawParams: Record<string, unknown>;
  }
  // A route's config says how it authenticates; test/conventions/contract.test.ts finds routes without a config.
  interface FastifyContextConfig extends RouteAuth, RouteContract {
    auth: NonNullable<RouteAuth['auth']>;
  }
}

/** The application as route modules see it: parameters, bodies and answers typed from the route's TypeBox schemas. */
export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;
