// Reads of a project's export and import state.
import type { Kysely } from 'kysely';
import type { DB, ImportFailureRow, ProjectExportRow, ProjectImportStateRow } from '../../db/schema.ts';

export const MAX_FAILED_RELATIONS = 100;

export function findExport(db: Kysely<DB>, projectId: number): Promise<ProjectExportRow | undefined> {
  return db.selectFrom('project_exports').selectAll().where('project_id', '=', projectId).executeTakeFirst();
}

export function findImportState(db: Kysely<DB>, projectId: number): Promise<ProjectImportStateRow | undefined> {
  return db.selectFrom('project_import_states').selectAll().where('project_id', '=', projectId).executeTakeFirst();
}

/** The hard failures of this import (its correlation id), at most 100, newest first. */
export function importFailures(db: Kysely<DB>, projectId: number, correlationId: string): Promise<ImportFailureRow[]> {
  return db
    .selectFrom('import_failures')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('correlation_id', '=', correlationId)
    .orderBy('id', 'desc')
    .limit(MAX_FAILED_RELATIONS)
    .execute();
}
