// Receiving alerts at an integration's address (14.x Projects::Alerting::NotifyService,
// Projects::Prometheus::Alerts::NotifyService and AlertManagement::AlertProcessing).
//
// Checks, in the platform's order: a body over 1 MB, nested deeper than 100 levels or not a JSON
// object is 400; then an Alertmanager notification goes its own way (no active integration or a
// wrong token: 401; else each of its alerts is processed and the answer is 201); any other payload
// needs an active integration at the address (403) and its token (401), and is answered 200 with
// the alert it created or touched.
//
// Processing: a payload with a fingerprint that matches an alert of the project that is not
// resolved counts as that alert's new event, or resolves it when the payload carries an end time;
// otherwise a new alert is made (already resolved when the payload carries an end time, as 14.x
// does). A new alert gets the alert bot's system note "logged an alert from **<tool>**", one the
// payload resolves its "changed the status to **Resolved**". A concurrent receiver that made the same alert first is found again through the unique
// index on unresolved fingerprints, and the payload counts as its event.
import { timingSafeEqual } from 'node:crypto';
import { sql } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import type { AlertManagementAlertRow, ProjectRow } from '../../db/schema.ts';
import { nextInternalId } from '../../domain/internal-ids.ts';
import {
  type AlertAttributes,
  type JsonObject,
  PROMETHEUS_MAX_ALERTS,
  genericAttributes,
  isPrometheusPayload,
  prometheusAttributes,
  readPayload,
} from './alert-payload.ts';
import { activeIntegration, unresolvedAlert } from './alert-management.finder.ts';
import { integrationToken } from './http-integrations.service.ts';
import { mappingOf } from './http-integrations.validation.ts';
import { addSystemNote } from '../notes/notes.service.ts';
import { alertBot } from '../users/users.service.ts';
import { alertNoteable } from './alert-actions.service.ts';

/** Who logs what the receiver does, and the name of the source it logs alerts from. */
interface Logger {
  botId: number;
  source: string;
}

export type NotifyOutcome = { status: 400 | 401 | 403 } | { status: 200; alerts: { iid: number; title: string }[] } | { status: 201 };

/** The token of `Authorization: Bearer <token>`; null without one. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  return match ? match[1].trim() : null;
}

function sameToken(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Processes one alert's attributes; the alert as it is afterwards. */
async function processAlert(ctx: ServiceContext, project: ProjectRow, attrs: AlertAttributes, payload: JsonObject, logger: Logger): Promise<AlertManagementAlertRow> {
  const now = ctx.now().toISOString();
  const resolving = attrs.endedAt !== null;
  const existing = attrs.fingerprint === null ? undefined : await unresolvedAlert(ctx.db, project.id, attrs.fingerprint);
  if (existing) return touchAlert(ctx, existing, attrs, now, logger);

  const iid = await nextInternalId(ctx, project.id, 'alert_management_alerts');
  const created = await ctx.db
    .insertInto('alert_management_alerts')
    .values({
      project_id: project.id,
      iid,
      title: attrs.title,
      description: attrs.description,
      service: attrs.service,
      monitoring_tool: attrs.monitoringTool,
      hosts: JSON.stringify(attrs.hosts),
      severity: attrs.severity,
      status: resolving ? 'resolved' : 'triggered',
      events: 1,
      fingerprint: attrs.fingerprint,
      started_at: attrs.startedAt,
      ended_at: attrs.endedAt,
      payload: JSON.stringify(payload),
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).where(sql<boolean>`status <> 'resolved'`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (created) {
    await addSystemNote(ctx, alertNoteable(created), `logged an alert from **${attrs.monitoringTool ?? logger.source}**`, logger.botId);
    return created;
  }
  // Another receiver made the same alert in the meantime.
  const winner = await unresolvedAlert(ctx.db, project.id, attrs.fingerprint as string);
  if (!winner) throw new Error('an alert that conflicted with another is not found again');
  return touchAlert(ctx, winner, attrs, now, logger);
}

/** A payload for an alert not resolved: its end time resolves it, else it is one more event of it. */
async function touchAlert(ctx: ServiceContext, alert: AlertManagementAlertRow, attrs: AlertAttributes, now: string, logger: Logger): Promise<AlertManagementAlertRow> {
  if (attrs.endedAt === null) {
    // A new event does not count as a change of the alert (its updated_at stays), as the platform's counter.
    return ctx.db.updateTable('alert_management_alerts').set((eb) => ({ events: eb('events', '+', 1) })).where('id', '=', alert.id).returningAll().executeTakeFirstOrThrow();
  }
  const resolved = await ctx.db
    .updateTable('alert_management_alerts')
    .set({ status: 'resolved', ended_at: attrs.endedAt, updated_at: now })
    .where('id', '=', alert.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await addSystemNote(ctx, alertNoteable(resolved), 'changed the status to **Resolved**', logger.botId);
  return resolved;
}

/**
 * Receives a payload posted to one of the project's addresses: `endpointIdentifier` names the
 * integration, null for the older address without one.
 */
export async function receiveAlerts(ctx: ServiceContext, project: ProjectRow, endpointIdentifier: string | null, token: string | null, body: Buffer): Promise<NotifyOutcome> {
  const payload = readPayload(body);
  if (payload === null) return { status: 400 };
  const integration = await activeIntegration(ctx.db, project.id, endpointIdentifier);
  const tokenMatches = integration !== undefined && sameToken(token, integrationToken(ctx, integration));

  if (isPrometheusPayload(payload)) {
    if (!tokenMatches) return { status: 401 };
    const logger = { botId: (await alertBot(ctx)).id, source: 'Prometheus' };
    const entries = Array.isArray(payload.alerts) ? payload.alerts.slice(0, PROMETHEUS_MAX_ALERTS) : [];
    await withTransaction(ctx, async (tx) => {
      for (const entry of entries) {
        const attrs = prometheusAttributes(entry, tx.now());
        if (attrs) await processAlert(tx, project, attrs, entry as JsonObject, logger);
      }
    });
    return { status: 201 };
  }

  if (!integration) return { status: 403 };
  if (!tokenMatches) return { status: 401 };
  const attrs = genericAttributes(payload, mappingOf(integration), ctx.now());
  const logger = { botId: (await alertBot(ctx)).id, source: integration.name };
  const alert = await withTransaction(ctx, (tx) => processAlert(tx, project, attrs, payload, logger));
  return { status: 200, alerts: [{ iid: alert.iid, title: alert.title }] };
}
