// Pure row → entity functions for HTTP integrations and alerts.
import type { AlertManagementAlertRow, AlertManagementHttpIntegrationRow, UserRow } from '../../db/schema.ts';
import { userBasicFields } from '../users/users.presenter.ts';
import { projectWebUrl } from '../../domain/urls.ts';
import type { AlertStatus, AttributeMapping, JsonObject, MappableField, Severity } from './alert-payload.ts';
import type { Alert, HttpIntegration } from './alert-management.schemas.ts';
import { mappingOf, nameSlug, payloadExampleOf } from './http-integrations.validation.ts';

/** What an integration's entity shows beside its row: its project's address and its token, opened. */
export interface IntegrationView {
  baseUrl: string;
  projectFullPath: string;
  token: string;
}

/** Where the integration receives alerts. */
export function integrationUrl(row: Pick<AlertManagementHttpIntegrationRow, 'name' | 'endpoint_identifier'>, baseUrl: string, projectFullPath: string): string {
  return `${projectWebUrl(baseUrl, { full_path: projectFullPath })}/-/alerts/notify/${nameSlug(row.name)}/${row.endpoint_identifier}.json`;
}

/** The mapping as a list, in the order it was given. */
export function fieldMappings(mapping: AttributeMapping): HttpIntegration['payload_attribute_mappings'] {
  return (Object.entries(mapping) as [MappableField, NonNullable<AttributeMapping[MappableField]>][]).map(([field, m]) => ({
    field_name: field,
    path: m.path,
    type: m.type,
    label: m.label,
  }));
}

export function presentIntegration(row: AlertManagementHttpIntegrationRow, view: IntegrationView): HttpIntegration {
  return {
    id: row.id,
    name: row.name,
    active: row.active,
    type: 'http',
    url: integrationUrl(row, view.baseUrl, view.projectFullPath),
    token: view.token,
    api_url: null,
    payload_example: payloadExampleOf(row),
    payload_attribute_mappings: fieldMappings(mappingOf(row)),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function alertWebUrl(baseUrl: string, projectFullPath: string, iid: number): string {
  return `${projectWebUrl(baseUrl, { full_path: projectFullPath })}/-/alert_management/${iid}/details`;
}

export function presentAlert(row: AlertManagementAlertRow, view: { baseUrl: string; projectFullPath: string; assignees: Map<number, UserRow[]> }): Alert {
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    severity: row.severity as Severity,
    status: row.status as AlertStatus,
    service: row.service,
    monitoring_tool: row.monitoring_tool,
    hosts: JSON.parse(row.hosts) as string[],
    event_count: row.events,
    fingerprint: row.fingerprint,
    started_at: row.started_at,
    ended_at: row.ended_at,
    payload: JSON.parse(row.payload) as JsonObject,
    assignees: (view.assignees.get(row.id) ?? []).map((user) => userBasicFields(user, view.baseUrl)),
    web_url: alertWebUrl(view.baseUrl, view.projectFullPath, row.iid),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
