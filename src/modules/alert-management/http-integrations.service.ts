// Adding, changing and removing a project's HTTP integrations (14.x
// AlertManagement::HttpIntegrations::{Create,Update,Destroy}Service with the premium fields): a new
// integration gets a random endpoint identifier (its address, never changed) and a random token,
// sealed with the instance's key; resetting the token makes a new one. Quarry offers the premium
// tier, so a project may have several integrations.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../core/context.ts';
import { invalidFields } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { AlertManagementHttpIntegrationRow, ProjectRow } from '../../db/schema.ts';
import type { AttributeMapping, JsonObject } from './alert-payload.ts';
import { nameErrors } from './http-integrations.validation.ts';

export interface IntegrationInput {
  name?: string;
  active?: boolean;
  payloadExample?: JsonObject;
  mapping?: AttributeMapping;
}

/** 32 lowercase hex characters, as the platform's tokens. */
const newToken = () => randomBytes(16).toString('hex');

function checkName(name: string): void {
  const errors = nameErrors(name);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
}

/** The integration's token in clear, to show to those who manage it and to check what the tool sends. */
export function integrationToken(ctx: Pick<ServiceContext, 'config'>, row: Pick<AlertManagementHttpIntegrationRow, 'token_encrypted'>): string {
  return secretBox(ctx.config.dataDir).open(row.token_encrypted);
}

export async function createIntegration(ctx: ServiceContext, project: ProjectRow, input: IntegrationInput & { name: string; active: boolean }): Promise<AlertManagementHttpIntegrationRow> {
  checkName(input.name);
  const at = ctx.now().toISOString();
  return ctx.db
    .insertInto('alert_management_http_integrations')
    .values({
      project_id: project.id,
      name: input.name,
      active: input.active,
      endpoint_identifier: randomBytes(8).toString('hex'),
      token_encrypted: secretBox(ctx.config.dataDir).seal(newToken()),
      payload_example: JSON.stringify(input.payloadExample ?? {}),
      payload_attribute_mapping: JSON.stringify(input.mapping ?? {}),
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The fields given; nothing to change keeps the integration's updated_at. */
export async function updateIntegration(ctx: ServiceContext, row: AlertManagementHttpIntegrationRow, input: IntegrationInput): Promise<AlertManagementHttpIntegrationRow> {
  const next = {
    name: input.name ?? row.name,
    active: input.active ?? row.active,
    payload_example: input.payloadExample === undefined ? row.payload_example : JSON.stringify(input.payloadExample),
    payload_attribute_mapping: input.mapping === undefined ? row.payload_attribute_mapping : JSON.stringify(input.mapping),
  };
  checkName(next.name);
  if ((Object.keys(next) as (keyof typeof next)[]).every((key) => next[key] === row[key])) return row;
  return ctx.db
    .updateTable('alert_management_http_integrations')
    .set({ ...next, updated_at: ctx.now().toISOString() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A new token; the old one stops working at once. */
export async function resetIntegrationToken(ctx: ServiceContext, row: AlertManagementHttpIntegrationRow): Promise<AlertManagementHttpIntegrationRow> {
  return ctx.db
    .updateTable('alert_management_http_integrations')
    .set({ token_encrypted: secretBox(ctx.config.dataDir).seal(newToken()), updated_at: ctx.now().toISOString() })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Removes the integration; the alerts it received stay. */
export async function destroyIntegration(ctx: ServiceContext, row: AlertManagementHttpIntegrationRow): Promise<void> {
  await ctx.db.deleteFrom('alert_management_http_integrations').where('id', '=', row.id).execute();
}
