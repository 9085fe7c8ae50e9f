// The background work of group exports and imports: building a group's archive, and restoring a
// group from one. Work that fails for good (its worker died) is marked failed. Hourly, archives a
// day old are removed.
import { systemContext } from '../../core/context.ts';
import { defineJobKind } from '../../jobs/queue.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { GROUP_EXPORT, markGroupExportFailed, removeExpiredGroupExports, runGroupExport } from './group-exports.service.ts';
import { GROUP_IMPORT, markGroupImportFailed, runGroupImport } from './group-imports.service.ts';

export const groupExportJob = defineJobKind({
  ...GROUP_EXPORT,
  run: (ctx, { groupId }) => runGroupExport(ctx, groupId),
  failed: (ctx, { groupId }) => markGroupExportFailed(ctx, groupId),
});

export const groupImportJob = defineJobKind({
  ...GROUP_IMPORT,
  run: (ctx, { groupId }) => runGroupImport(ctx, groupId),
  failed: (ctx, { groupId }) => markGroupImportFailed(ctx, groupId),
});

export const removeExpiredGroupExportsTask: PeriodicTask = {
  name: 'remove_expired_group_exports',
  everySeconds: 60 * 60,
  run: async (deps) => void (await removeExpiredGroupExports(systemContext(deps))),
};
