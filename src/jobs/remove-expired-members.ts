// Membership expiry: memberships whose expiry date has come are removed hourly, with what the
// platform's removal does (events, authorizations, expired project bots deleted); see
// removeExpiredMembers.
import { systemContext } from '../core/context.ts';
import { removeExpiredMembers } from '../modules/members/members.service.ts';
import type { PeriodicTask } from './scheduler.ts';

export const removeExpiredMembersTask: PeriodicTask = {
  name: 'remove_expired_members',
  everySeconds: 60 * 60,
  run: (deps) => removeExpiredMembers(systemContext(deps)),
};
