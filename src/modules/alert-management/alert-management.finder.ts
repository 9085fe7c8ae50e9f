// Reads of a project's HTTP integrations and alerts.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { AlertManagementAlertRow, AlertManagementHttpIntegrationRow, DB } from '../../db/schema.ts';
import type { AlertStatus, Severity } from './alert-payload.ts';

/** The project's HTTP integrations, oldest first. */
export function projectIntegrations(db: Kysely<DB>, projectId: number): SelectQueryBuilder<DB, 'alert_management_http_integrations', AlertManagementHttpIntegrationRow> {
  return db.selectFrom('alert_management_http_integrations').selectAll().where('project_id', '=', projectId).orderBy('id');
}

/** One integration of the project; undefined when the project has no such integration. */
export function findProjectIntegration(db: Kysely<DB>, projectId: number, id: number): Promise<AlertManagementHttpIntegrationRow | undefined> {
  return projectIntegrations(db, projectId).where('id', '=', id).executeTakeFirst();
}

/** Any project's integration, by id (GraphQL names integrations by their global id alone). */
export function findIntegration(db: Kysely<DB>, id: number): Promise<AlertManagementHttpIntegrationRow | undefined> {
  return db.selectFrom('alert_management_http_integrations').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The active integration an address names: by its endpoint identifier, or, for the project's
 * older address without one, the project's oldest active integration.
 */
export function activeIntegration(db: Kysely<DB>, projectId: number, endpointIdentifier: string | null): Promise<AlertManagementHttpIntegrationRow | undefined> {
  return projectIntegrations(db, projectId)
    .where('active', '=', true)
    .$if(endpointIdentifier !== null, (q) => q.where('endpoint_identifier', '=', endpointIdentifier as string))
    .limit(1)
    .executeTakeFirst();
}

export interface AlertFilters {
  status?: AlertStatus;
  severity?: Severity;
}

/** The project's alerts, newest first. */
export function projectAlerts(db: Kysely<DB>, projectId: number, filters: AlertFilters = {}): SelectQueryBuilder<DB, 'alert_management_alerts', AlertManagementAlertRow> {
  return db
    .selectFrom('alert_management_alerts')
    .selectAll()
    .where('project_id', '=', projectId)
    .$if(filters.status !== undefined, (q) => q.where('status', '=', filters.status as string))
    .$if(filters.severity !== undefined, (q) => q.where('severity', '=', filters.severity as string))
    .orderBy('id', 'desc');
}

export function findProjectAlert(db: Kysely<DB>, projectId: number, iid: number): Promise<AlertManagementAlertRow | undefined> {
  return db.selectFrom('alert_management_alerts').selectAll().where('project_id', '=', projectId).where('iid', '=', iid).executeTakeFirst();
}

/** The project's alert with this fingerprint that is not resolved, if any. */
export function unresolvedAlert(db: Kysely<DB>, projectId: number, fingerprint: string): Promise<AlertManagementAlertRow | undefined> {
  return db
    .selectFrom('alert_management_alerts')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('fingerprint', '=', fingerprint)
    .where('status', '<>', 'resolved')
    .executeTakeFirst();
}
