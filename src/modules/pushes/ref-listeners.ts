// The one extension point of a change of refs: whatever must follow a push or an API write of
// refs (CI starts pipelines) registers a listener here, once, when its module loads.
import type { Deps } from '../../core/deps.ts';
import type { ProjectRow } from '../../db/schema.ts';
import type { RefUpdate } from '../../git/refs.ts';

export interface RefsUpdated {
  /** The project as it is after the change (default branch and empty_repo brought up to date). */
  project: ProjectRow;
  /** Who changed the refs. */
  userId: number;
  updates: readonly RefUpdate[];
}

export type RefsUpdatedListener = (deps: Deps, change: RefsUpdated) => Promise<void>;

const listeners = new Set<RefsUpdatedListener>();

/** Registers a listener, called after every change of refs once its events are recorded; returns its removal. */
export function onRefsUpdated(listener: RefsUpdatedListener): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * Calls every listener, each whatever the others do: the refs have changed already, so one
 * failing listener must not keep the next from running. Rejects afterwards with the failures.
 */
export async function notifyRefsUpdated(deps: Deps, change: RefsUpdated): Promise<void> {
  const failures: unknown[] = [];
  for (const listener of [...listeners]) {
    try {
      await listener(deps, change);
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, 'a listener of ref updates failed');
}
