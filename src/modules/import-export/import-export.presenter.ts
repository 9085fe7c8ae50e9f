// Export and import statuses as the platform's entities (pure).
import type { ImportFailureRow, ProjectExportRow, ProjectImportStateRow, ProjectRow } from '../../db/schema.ts';
import { presentProjectIdentity } from '../projects/projects.presenter.ts';
import type { ExportStatus, ExportStatusView, ImportStatusView } from './import-export.schemas.ts';

/** Project#export_status (a group's export too), first match wins: a job waiting or running beside a kept archive, then the job, then the archive. */
export function exportStatusOf(row: Pick<ProjectExportRow, 'status' | 'file_path' | 'exported_at'> | undefined, now: Date, ttlMs: number): ExportStatus {
  const file = row?.file_path != null && row.exported_at !== null && now.getTime() - Date.parse(row.exported_at) < ttlMs;
  const running = row?.status === 'queued' || row?.status === 'started';
  if (running && file) return 'regeneration_in_progress';
  if (row?.status === 'queued') return 'queued';
  if (row?.status === 'started') return 'started';
  if (file) return 'finished';
  return 'none';
}

export function presentExportStatus(project: ProjectRow, status: ExportStatus, externalUrl: string): ExportStatusView {
  return {
    ...presentProjectIdentity(project),
    export_status: status,
    ...(status === 'finished'
      ? { _links: { api_url: `${externalUrl}/api/v4/projects/${project.id}/export/download`, web_url: `${externalUrl}/${project.full_path}/download_export` } }
      : {}),
  };
}

/** What a reader without the right to see import errors is told instead (ProjectImportStatus). */
export const IMPORT_ERROR_HIDDEN = 'Ask a maintainer to check the import status for more details.';

export function presentImportStatus(project: ProjectRow, state: ProjectImportStateRow | undefined, failures: readonly ImportFailureRow[], mayReadError: boolean): ImportStatusView {
  const error = state?.status === 'failed' ? state.last_error : null;
  return {
    ...presentProjectIdentity(project),
    import_status: state?.status ?? project.import_status,
    import_type: state?.import_type ?? null,
    correlation_id: state?.correlation_id ?? null,
    failed_relations: failures.map((f) => ({
      id: f.id,
      created_at: f.created_at,
      exception_class: f.exception_class,
      exception_message: f.exception_message,
      source: f.source,
      relation_name: f.relation_key,
    })),
    import_error: error === null ? null : mayReadError ? error : IMPORT_ERROR_HIDDEN,
  };
}
