// Telling waiting runners that jobs became pending. A runner's job request may wait (long polling)
// until a job it could take appears: jobs queued by this process wake its waiting requests at once,
// and on PostgreSQL a notification at commit wakes those of every node.
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';

/** The PostgreSQL channel on which nodes learn of new pending jobs. */
export const PENDING_BUILDS_CHANNEL = 'quarry_ci_pending_builds';

const listeners = new Set<() => void>();
/** Moves on with every announcement: runners echo it back as `last_update`. */
let tick = Date.now();

export const queueTick = () => String(tick);

/** Calls listener whenever jobs may have become pending; returns its removal. */
export function onPendingBuilds(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

/** Wakes this process's waiting requests (and, through the notification, other nodes'). */
export function wakeRunnerRequests(): void {
  tick++;
  for (const listener of [...listeners]) listener();
}

/** Announces pending jobs from inside the transaction that queued them. */
export async function announcePendingBuilds(db: Kysely<DB>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await sql`select pg_notify(${PENDING_BUILDS_CHANNEL}, '')`.execute(db);
  // SQLite: one connection per process, so the woken request's read waits for this commit.
  else setImmediate(wakeRunnerRequests);
}
