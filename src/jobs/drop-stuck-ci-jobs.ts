// CI jobs that can no longer finish are failed every ten minutes, as the platform's stuck-jobs
// worker does (thresholds QUARRY_CI_STUCK_RUNNING_SECONDS and QUARRY_CI_STUCK_PENDING_SECONDS).
import { systemContext } from '../core/context.ts';
import { dropStuckJobs } from '../modules/ci-jobs/ci-jobs.service.ts';
import type { PeriodicTask } from './scheduler.ts';

export const dropStuckCiJobsTask: PeriodicTask = {
  name: 'drop_stuck_ci_jobs',
  everySeconds: 10 * 60,
  run: async (deps) => void (await dropStuckJobs(systemContext(deps))),
};
