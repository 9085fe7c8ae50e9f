// Writes of error tracking: the settings (PATCH of 14.x, which needs them to exist; PUT, which
// creates them), client keys, and the collector's work: each event joins the error its exception
// type, value, culprit and platform name (one atomic upsert on their fingerprint, so concurrent
// events of one error count once each), and is kept with its payload.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { DomainError, notFound } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { ErrorTrackingClientKeyRow, ErrorTrackingErrorRow, ErrorTrackingSettingRow, ProjectRow } from '../../db/schema.ts';
import { blockedUrlMessage } from '../../domain/url-blocker.ts';
import type { CollectedEvent } from './collector-payload.ts';
import { findSettings } from './error-tracking.finder.ts';
import { apiUrlSlugs } from './error-tracking.presenter.ts';
import type { ErrorStatus, PatchSettingsBody, PutSettingsBody } from './error-tracking.schemas.ts';

export const settingsNotFound = () => notFound('Error Tracking Setting');

/** PATCH: turns tracking on or off (and the integrated tracker, when said) on existing settings. */
export async function patchSettings(ctx: ServiceContext, project: ProjectRow, body: PatchSettingsBody): Promise<ErrorTrackingSettingRow> {
  return withTransaction(ctx, async (tx) => {
    const row = await findSettings(tx.db, project.id);
    if (!row) throw settingsNotFound();
    return tx.db
      .updateTable('error_tracking_settings')
      .set({ enabled: body.active, ...(body.integrated !== undefined ? { integrated: body.integrated } : {}), updated_at: tx.now().toISOString() })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** The model's rules: an active external tracker needs a valid API address of a tracker project, and a token. */
function validateSettings(next: { enabled: boolean; integrated: boolean; api_url: string | null; hasToken: boolean }): void {
  const fields: Record<string, string[]> = {};
  const add = (field: string, message: string) => (fields[field] ??= []).push(message);
  if (next.api_url !== null) {
    const blocked = blockedUrlMessage(next.api_url, ['http', 'https']);
    if (blocked) add('api_url', blocked);
    else if (next.api_url.length > 255) add('api_url', 'is too long (maximum is 255 characters)');
  }
  if (next.enabled && !next.integrated) {
    if (next.api_url === null) add('api_url', 'is a required field');
    if (!next.hasToken) add('token', 'is a required field');
    if (next.api_url !== null && !fields.api_url) {
      const slugs = apiUrlSlugs(next.api_url);
      if (!slugs) add('api_url', 'is invalid');
      else if (slugs.organization === '' || slugs.project === '') add('project', 'is a required field');
    }
  }
  if (Object.keys(fields).length > 0) throw new DomainError({ status: 400, message: '400 Bad request', fields });
}

/** PUT: creates the settings or replaces them; an address or token not sent is kept. */
export async function putSettings(ctx: ServiceContext, project: ProjectRow, body: PutSettingsBody): Promise<ErrorTrackingSettingRow> {
  return withTransaction(ctx, async (tx) => {
    const row = await findSettings(tx.db, project.id);
    const blank = (v: string | null | undefined) => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim());
    const apiUrl = blank(body.api_url);
    const token = blank(body.token);
    const projectName = blank(body.project_name);
    const next = {
      enabled: body.active,
      integrated: body.integrated,
      api_url: apiUrl === undefined ? (row?.api_url ?? null) : apiUrl,
      project_name: projectName === undefined ? (row?.project_name ?? null) : projectName,
    };
    const keepsToken = token === undefined && row?.token_encrypted != null;
    validateSettings({ ...next, hasToken: keepsToken || (token !== undefined && token !== null) });
    const at = tx.now().toISOString();
    const tokenColumn = token === undefined ? {} : { token_encrypted: token === null ? null : secretBox(tx.config.dataDir).seal(token) };
    if (row) {
      return tx.db.updateTable('error_tracking_settings').set({ ...next, ...tokenColumn, updated_at: at }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
    }
    return tx.db
      .insertInto('error_tracking_settings')
      .values({ project_id: project.id, ...next, token_encrypted: null, ...tokenColumn, created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/** A new active key: `glet_` and 32 hex digits. */
export async function createClientKey(ctx: ServiceContext, project: ProjectRow): Promise<ErrorTrackingClientKeyRow> {
  const at = ctx.now().toISOString();
  return ctx.db
    .insertInto('error_tracking_client_keys')
    .values({ project_id: project.id, public_key: `glet_${randomBytes(16).toString('hex')}`, created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteClientKey(ctx: ServiceContext, key: ErrorTrackingClientKeyRow): Promise<void> {
  await ctx.db.deleteFrom('error_tracking_client_keys').where('id', '=', key.id).execute();
}

/** The identity of an error: its four grouping values. */
function fingerprintOf(event: CollectedEvent): string {
  return createHash('sha256').update(JSON.stringify([event.name, event.description, event.actor, event.platform])).digest('hex');
}

/**
 * Records one event: its error is found or made, counted, its first and last times widened, and a
 * resolved error that happens again is unresolved (an ignored one stays ignored).
 */
export async function collectEvent(ctx: ServiceContext, project: ProjectRow, event: CollectedEvent, payload: string): Promise<ErrorTrackingErrorRow> {
  return withTransaction(ctx, async (tx) => {
    const at = tx.now().toISOString();
    const error = await tx.db
      .insertInto('error_tracking_errors')
      .values({
        project_id: project.id,
        fingerprint: fingerprintOf(event),
        name: event.name,
        description: event.description,
        actor: event.actor,
        platform: event.platform,
        events_count: 1,
        first_seen_at: event.occurredAt,
        last_seen_at: event.occurredAt,
        created_at: at,
        updated_at: at,
      })
      .onConflict((oc) =>
        oc.columns(['project_id', 'fingerprint']).doUpdateSet({
          events_count: sql`error_tracking_errors.events_count + 1`,
          first_seen_at: sql`case when excluded.first_seen_at < error_tracking_errors.first_seen_at then excluded.first_seen_at else error_tracking_errors.first_seen_at end`,
          last_seen_at: sql`case when excluded.last_seen_at > error_tracking_errors.last_seen_at then excluded.last_seen_at else error_tracking_errors.last_seen_at end`,
          status: sql`case when error_tracking_errors.status = 'resolved' then 'unresolved' else error_tracking_errors.status end`,
          updated_at: at,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    await tx.db
      .insertInto('error_tracking_error_events')
      .values({ error_id: error.id, description: event.description, environment: event.environment, level: event.level, occurred_at: event.occurredAt, payload, created_at: at })
      .execute();
    return error;
  });
}

/**
 * Sets an error's status (the integrated tracker's unresolved, resolved or ignored). A resolved
 * error opens again when its next event arrives (collectEvent); an ignored one stays ignored.
 */
export async function updateErrorStatus(ctx: ServiceContext, error: ErrorTrackingErrorRow, status: ErrorStatus): Promise<ErrorTrackingErrorRow> {
  if (error.status === status) return error;
  return ctx.db
    .updateTable('error_tracking_errors')
    .set({ status, updated_at: ctx.now().toISOString() })
    .where('id', '=', error.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
