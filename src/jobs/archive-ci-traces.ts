// Finished jobs' logs move from the database to the artifacts storage every minute (see
// modules/ci-jobs/trace-archive.ts).
import { archiveFinishedTraces } from '../modules/ci-jobs/index.ts';
import type { PeriodicTask } from './scheduler.ts';

export const archiveCiTracesTask: PeriodicTask = {
  name: 'archive_ci_traces',
  everySeconds: 60,
  run: async (deps) => void (await archiveFinishedTraces(deps)),
};
