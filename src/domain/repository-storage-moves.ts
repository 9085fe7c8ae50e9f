// Repository storage moves as every kind of container (project, snippet, group) shares them: the
// states the platform stores and names, and the bulk scheduling of every container on a storage.
import type { ServiceContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';

/** The platform's stored values (RepositoryStorageMovable). */
export const MOVE_STATE = { initial: 1, scheduled: 2, started: 3, finished: 4, failed: 5, replicated: 6, cleanup_failed: 7 } as const;
export type MoveStateName = keyof typeof MOVE_STATE;

/** The names the API shows (the platform's human_state_name: `cleanup failed` with a space). */
export const MOVE_STATE_NAMES = ['initial', 'scheduled', 'started', 'finished', 'failed', 'replicated', 'cleanup failed'] as const;
export type MoveStateHumanName = (typeof MOVE_STATE_NAMES)[number];

export function moveStateName(state: number): MoveStateHumanName {
  return MOVE_STATE_NAMES[state - 1] ?? 'initial';
}

/** States in which the move still holds its container read-only (or is about to). */
export const MOVE_IN_PROGRESS: readonly number[] = [MOVE_STATE.initial, MOVE_STATE.scheduled, MOVE_STATE.started];

/** Containers read per batch by a bulk move. */
const BULK_BATCH = 100;

/**
 * The bulk job's work: a move for each writable project or snippet on `source`, a batch at a time;
 * those that another move made read-only since the batch was read (400) are left to it. Running
 * again schedules only what is still there.
 */
export async function scheduleMovesOn(
  ctx: ServiceContext,
  table: 'projects' | 'snippets',
  source: string,
  scheduleOne: (id: number) => Promise<unknown>,
): Promise<number> {
  let after = 0;
  let scheduled = 0;
  for (;;) {
    const batch = await ctx.db
      .selectFrom(table)
      .select('id')
      .where('repository_storage', '=', source)
      .where('repository_read_only', '=', false)
      .where('id', '>', after)
      .orderBy('id')
      .limit(BULK_BATCH)
      .execute();
    if (batch.length === 0) return scheduled;
    for (const { id } of batch) {
      try {
        await scheduleOne(id);
        scheduled += 1;
      } catch (error) {
        if (!(error instanceof DomainError && error.status === 400)) throw error;
      }
    }
    after = batch[batch.length - 1].id;
  }
}
