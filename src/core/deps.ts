// What the application is built from, and the request/instance decorations every route relies on.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { DB } from '../db/schema.ts';
import type { Actor, RouteAuth } from './auth/actor.ts';
import type { JobTokenResolver } from './auth/job-tokens.ts';

export interface Deps {
  readonly config: Config;
  readonly database: Database;
  readonly db: Kysely<DB>;
  readonly jobTokens: JobTokenResolver;
  /** The clock; tests may replace it. */
  readonly now: () => Date;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
  }
  interface FastifyRequest {
    actor: Actor | null;
    /** Query and body parameters as received (body wins), for credentials and Link headers. */
    rawParams: Record<string, unknown>;
  }
  interface FastifyContextConfig extends RouteAuth {}
}
