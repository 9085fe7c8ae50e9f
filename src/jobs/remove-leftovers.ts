// Scratch work that a process stopped in the middle of (a repository being built or deleted, a
// push's hook directory, an export's or import's scratch) is removed at start-up and then hourly:
// at once when its process is gone from this host, never while that process runs, and after an
// hour when another host made it (longer than any git operation may run). A push whose refs had
// moved is recorded first. Uploads being written (artifacts) go after an hour.
import type { BaseContext } from '../core/context.ts';
import { removeScratchLeftovers } from '../git/repository.ts';
import { removePushLeftovers } from '../modules/pushes/index.ts';
import { artifactsStorage } from '../storage/file-storage.ts';
import type { PeriodicTask } from './scheduler.ts';

export const LEFTOVER_AGE_MS = 60 * 60 * 1000;

export async function removeLeftovers(ctx: BaseContext): Promise<number> {
  const [scratch, pushes, uploads] = await Promise.all([
    removeScratchLeftovers(ctx.config.repositoryStorages, LEFTOVER_AGE_MS),
    removePushLeftovers(ctx, LEFTOVER_AGE_MS),
    artifactsStorage(ctx.config).removeStaleTemps(LEFTOVER_AGE_MS),
  ]);
  return scratch + pushes + uploads;
}

export const removeLeftoversTask: PeriodicTask = {
  name: 'remove_leftovers',
  everySeconds: 60 * 60,
  run: async (deps) => void (await removeLeftovers(deps)),
};
