// The background work of exports and imports: building a project's archive, and restoring a
// project from one. Work that fails for good (its worker died) is marked failed. Hourly, archives
// a day old are removed (removeExpiredExports).
import { systemContext } from '../../core/context.ts';
import { defineJobKind } from '../../jobs/queue.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { PROJECT_EXPORT, markExportFailed, removeExpiredExports, runExport } from './exports.service.ts';
import { PROJECT_IMPORT, markImportFailed, runImport } from './imports.service.ts';

export const projectExportJob = defineJobKind({
  ...PROJECT_EXPORT,
  run: (ctx, { projectId }) => runExport(ctx, projectId),
  failed: (ctx, { projectId }) => markExportFailed(ctx, projectId),
});

export const projectImportJob = defineJobKind({
  ...PROJECT_IMPORT,
  run: (ctx, { projectId }) => runImport(ctx, projectId),
  failed: (ctx, { projectId }) => markImportFailed(ctx, projectId, 'The import was interrupted'),
});

export const removeExpiredExportsTask: PeriodicTask = {
  name: 'remove_expired_project_exports',
  everySeconds: 60 * 60,
  run: async (deps) => void (await removeExpiredExports(systemContext(deps))),
};
