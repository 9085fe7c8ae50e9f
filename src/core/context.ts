// The one context every service takes: a database handle that may be an open transaction, the
// configuration, the clock, and the actor, the user on whose behalf the service acts (null when
// nobody signed in, and for the system: background jobs, periodic tasks, commands, start-up).
// Routes take the request's context from serviceContext(req); everything else acts as the system
// through systemContext(deps). Services compose through withTransaction, which joins a transaction
// that is already open instead of starting another.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { Actor } from './auth/actor.ts';
import { unauthorized } from './errors.ts';

/** What every context holds, whoever it acts for; the application's Deps hold it too. */
export interface BaseContext {
  readonly db: Kysely<DB>;
  readonly config: Config;
  /** The clock; tests may replace it. */
  readonly now: () => Date;
}

export interface ServiceContext extends BaseContext {
  /** The user on whose behalf the service acts; null when nobody signed in, and for the system. */
  readonly actor: Actor | null;
}

/** The request's context: the application's database, configuration and clock, acting for the request's actor. */
export function serviceContext(req: FastifyRequest): ServiceContext {
  const { db, config, now } = req.server.deps;
  return { db, config, now, actor: req.actor };
}

/** The context of work no user asked for: background jobs, periodic tasks, commands, start-up. */
export function systemContext(base: BaseContext): ServiceContext {
  return { db: base.db, config: base.config, now: base.now, actor: null };
}

/** The user the service acts for; 401, as the routes answer, when nobody signed in. */
export function requireActor(ctx: ServiceContext): Actor {
  if (!ctx.actor) throw unauthorized();
  return ctx.actor;
}

/** The context with its clock stopped at now, for a write whose rows must all carry one time. */
export function atTime<C extends BaseContext>(ctx: C, now: Date): C {
  return { ...ctx, now: () => now };
}

/**
 * Runs fn in one transaction: the caller's when ctx.db is one already, else a new one committed
 * when fn resolves and rolled back when it throws. Work outside the database (git, files) belongs
 * before it, or last inside it, or after it through the job queue.
 */
export async function withTransaction<C extends BaseContext, T>(ctx: C, fn: (ctx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return fn(ctx);
  return ctx.db.transaction().execute((trx) => fn({ ...ctx, db: trx }));
}
