// Repository storage moves as every kind of container (project, snippet, group) shares them: the
// states the platform stores and names.

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
