// Retention of activity events: events older than 3 years and a day are deleted, at most
// 10,000 per run so that one run never holds the table for long; the next run continues.
import type { PeriodicTask } from './scheduler.ts';

export const PRUNE_EVENTS_BATCH = 10_000;

/** The oldest creation time kept: 3 calendar years and a day before `now`. */
export function eventsCutoff(now: Date): Date {
  const cutoff = new Date(now.getTime());
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - 3);
  cutoff.setUTCDate(cutoff.getUTCDate() - 1);
  return cutoff;
}

export const pruneOldEventsTask: PeriodicTask = {
  name: 'prune_old_events',
  everySeconds: 6 * 60 * 60,
  async run(deps) {
    const cutoff = eventsCutoff(deps.now()).toISOString();
    await deps.db
      .deleteFrom('events')
      .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('created_at', '<', cutoff).limit(PRUNE_EVENTS_BATCH))
      .execute();
  },
};
