// A deleted project takes its deploy key joins with it (the rows cascade); the private deploy keys
// it leaves unused are removed here, as the platform removes a deploy key with its last project.
// Until then they count as gone (keys.finder.ts) and a new key of the same fingerprint replaces them.
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { removeOrphanedDeployKeys } from './keys.service.ts';

export const removeOrphanedDeployKeysTask: PeriodicTask = {
  name: 'remove_orphaned_deploy_keys',
  everySeconds: 60 * 60,
  run: async (deps) => void (await removeOrphanedDeployKeys(deps.db, 'all')),
};
