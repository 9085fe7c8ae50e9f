// Repository storage moves as every kind of container (project, snippet, group) shares them: the
// states the platform stores and names, and how a destination is chosen when none is given.
import { randomInt } from 'node:crypto';
import type { RepositoryStorages } from '../git/storages.ts';

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

/**
 * The platform's pick_repository_storage: a configured storage at random, in proportion to its
 * weight in `repository_storages_weighted`. Storages other than `except` are preferred (a move to
 * its own storage could only fail); without any weighted one, any other configured storage; and
 * `except` itself only when nothing else is configured.
 */
export function pickRepositoryStorage(storages: RepositoryStorages, weighted: Readonly<Record<string, number>>, except: string | null = null, random: (max: number) => number = randomInt): string {
  const names = Object.keys(storages);
  const others = names.filter((name) => name !== except);
  const candidates = others.filter((name) => (weighted[name] ?? 0) > 0);
  if (candidates.length === 0) return others[0] ?? (except as string);
  const total = candidates.reduce((sum, name) => sum + (weighted[name] as number), 0);
  let roll = random(total);
  for (const name of candidates) {
    roll -= weighted[name] as number;
    if (roll < 0) return name;
  }
  return candidates[candidates.length - 1];
}
