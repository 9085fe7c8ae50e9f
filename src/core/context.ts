// The one context every service takes: a database handle that may be an open transaction, the
// configuration and the clock. Services compose through withTransaction, which joins a
// transaction that is already open instead of starting another.
import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';

export interface ServiceContext {
  readonly db: Kysely<DB>;
  readonly config: Config;
  /** The clock; tests may replace it. */
  readonly now: () => Date;
}

/**
 * Runs fn in one transaction: the caller's when ctx.db is one already, else a new one committed
 * when fn resolves and rolled back when it throws. Work outside the database (git, files) belongs
 * before it, or last inside it, or after it through the job queue.
 */
export async function withTransaction<C extends ServiceContext, T>(ctx: C, fn: (ctx: C) => Promise<T>): Promise<T> {
  if (ctx.db.isTransaction) return fn(ctx);
  return ctx.db.transaction().execute((trx) => fn({ ...ctx, db: trx }));
}
