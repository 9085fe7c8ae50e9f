// Reads of a project's HTTP integrations and alerts.
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { AlertManagementAlertRow, AlertManagementHttpIntegrationRow, DB, UserRow } from '../../db/schema.ts';
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

/** The users each of these alerts is assigned to, in one query. */
export async function alertAssignees(db: Kysely<DB>, alertIds: readonly number[]): Promise<Map<number, UserRow[]>> {
  const byAlert = new Map<number, UserRow[]>(alertIds.map((id) => [id, []]));
  if (alertIds.length === 0) return byAlert;
  const rows = await db
    .selectFrom('alert_management_alert_assignees as a')
    .innerJoin('users', 'users.id', 'a.user_id')
    .selectAll('users')
    .select('a.alert_id')
    .where('a.alert_id', 'in', [...new Set(alertIds)])
    .orderBy('a.id')
    .execute();
  for (const { alert_id: alertId, ...user } of rows) byAlert.get(Number(alertId))?.push(user as UserRow);
  return byAlert;
}

/** Alerts by id with what a to-do shows of them (its target and its page). */
export async function alertsByIds(db: Kysely<DB>, ids: readonly number[]): Promise<{ id: number; iid: number; title: string; project_id: number }[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('alert_management_alerts').select(['id', 'iid', 'title', 'project_id']).where('id', 'in', [...new Set(ids)]).execute();
}

