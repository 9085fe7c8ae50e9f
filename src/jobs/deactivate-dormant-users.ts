// Dormant accounts: daily, when the instance's deactivate_dormant_users is on, people who have
// not been active for 90 days are deactivated (see deactivateDormantUsers).
import { systemContext } from '../core/context.ts';
import { deactivateDormantUsers } from '../modules/users/users.service.ts';
import type { PeriodicTask } from './scheduler.ts';

export const deactivateDormantUsersTask: PeriodicTask = {
  name: 'deactivate_dormant_users',
  everySeconds: 24 * 60 * 60,
  run: async (deps) => {
    await deactivateDormantUsers(systemContext(deps));
  },
};
