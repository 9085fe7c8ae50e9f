// Every periodic task of the server, listed explicitly, one line each; each node's scheduler
// runs them (see scheduler.ts for what a task must guarantee).
import { archiveCiTracesTask } from './archive-ci-traces.ts';
import { deactivateDormantUsersTask } from './deactivate-dormant-users.ts';
import { dropStuckCiJobsTask } from './drop-stuck-ci-jobs.ts';
import { pruneOldEventsTask } from './prune-old-events.ts';
import { removeExpiredMembersTask } from './remove-expired-members.ts';
import { removeLeftoversTask } from './remove-leftovers.ts';
import { runDueSchedulesTask } from '../modules/pipeline-schedules/pipeline-schedules.jobs.ts';
import { removeExpiredCiArtifactsTask } from '../modules/ci-artifacts/artifacts-expiry.jobs.ts';
import { removeOrphanedDeployKeysTask } from '../modules/keys/keys.jobs.ts';
import { verifyPagesDomainsTask } from '../modules/pages/pages.jobs.ts';
import { removeExpiredUserStatusesTask } from '../modules/user-status/user-status.jobs.ts';
import { removeExpiredExportsTask } from '../modules/import-export/import-export.jobs.ts';
import { removeExpiredGroupExportsTask } from '../modules/group-import-export/group-import-export.jobs.ts';
import type { PeriodicTask } from './scheduler.ts';

export const periodicTasks: readonly PeriodicTask[] = [
  archiveCiTracesTask,
  deactivateDormantUsersTask,
  dropStuckCiJobsTask,
  pruneOldEventsTask,
  removeExpiredCiArtifactsTask,
  removeExpiredExportsTask,
  removeExpiredGroupExportsTask,
  removeExpiredMembersTask,
  removeLeftoversTask,
  removeOrphanedDeployKeysTask,
  removeExpiredUserStatusesTask,
  runDueSchedulesTask,
  verifyPagesDomainsTask,
];
