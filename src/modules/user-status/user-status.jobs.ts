// Statuses whose clear_status_after time has come are removed every minute (reads already leave
// them out), as the platform's status clean-up worker does.
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { removeExpiredStatuses } from './user-status.service.ts';

export const removeExpiredUserStatusesTask: PeriodicTask = {
  name: 'remove_expired_user_statuses',
  everySeconds: 60,
  run: async (deps) => {
    await removeExpiredStatuses(deps.db, deps.now());
  },
};
