// The background work of exports and imports: building a project's archive, and restoring a
// project from one. Work that fails for good (its worker died) is marked failed.
import { defineJobKind } from '../../jobs/queue.ts';
import { PROJECT_EXPORT, markExportFailed, runExport } from './exports.service.ts';
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
