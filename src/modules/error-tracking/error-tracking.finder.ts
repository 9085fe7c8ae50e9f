// Reads of error tracking: a project's settings and client keys, the key an SDK names, and the
// integrated tracker's errors (filtered by status and text, in one of three orders) and events.
import { type Kysely, sql } from 'kysely';
import { containsText, searchTerm } from '../../core/search.ts';
import type { DB, ErrorTrackingClientKeyRow, ErrorTrackingErrorEventRow, ErrorTrackingErrorRow, ErrorTrackingSettingRow, ProjectRow } from '../../db/schema.ts';
import type { ErrorSort, ErrorStatus } from './error-tracking.schemas.ts';

export async function findSettings(db: Kysely<DB>, projectId: number): Promise<ErrorTrackingSettingRow | null> {
  return (await db.selectFrom('error_tracking_settings').selectAll().where('project_id', '=', projectId).executeTakeFirst()) ?? null;
}

export function projectClientKeys(db: Kysely<DB>, projectId: number) {
  return db.selectFrom('error_tracking_client_keys').selectAll().where('project_id', '=', projectId).orderBy('id', 'asc');
}

export async function findClientKey(db: Kysely<DB>, projectId: number, keyId: number): Promise<ErrorTrackingClientKeyRow | null> {
  return (await db.selectFrom('error_tracking_client_keys').selectAll().where('project_id', '=', projectId).where('id', '=', keyId).executeTakeFirst()) ?? null;
}

/** Whether the project has an active key with this public key. */
export async function hasActiveClientKey(db: Kysely<DB>, projectId: number, publicKey: string): Promise<boolean> {
  const row = await db
    .selectFrom('error_tracking_client_keys')
    .select('id')
    .where('project_id', '=', projectId)
    .where('public_key', '=', publicKey)
    .where('active', '=', true)
    .executeTakeFirst();
  return row !== undefined;
}

/** The project the collector's `:id` names (an id or a full path), whoever may see it: the client key is the credential. */
export async function findCollectorProject(db: Kysely<DB>, id: string): Promise<ProjectRow | null> {
  let q = db.selectFrom('projects').selectAll();
  if (/^\d{1,15}$/.test(id)) q = q.where('id', '=', Number(id));
  else q = q.where((eb) => eb(eb.fn('lower', ['full_path']), '=', id.toLowerCase()));
  return (await q.executeTakeFirst()) ?? null;
}

export interface ErrorFilters {
  status?: ErrorStatus | null;
  /** Text in the exception's type or value (case-insensitive). */
  search?: string | null;
}

/** The project's errors with the filters applied, unordered (a list orders them by ERROR_ORDER). */
export function projectErrors(db: Kysely<DB>, projectId: number, filters: ErrorFilters) {
  let q = db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', projectId);
  if (filters.status) q = q.where('status', '=', filters.status);
  const term = filters.search ? searchTerm(filters.search) : '';
  if (term !== '') q = q.where((eb) => eb.or([containsText(sql`lower(name)`, term), containsText(sql`lower(description)`, term)]));
  return q;
}

/** The column each order sorts by, newest (or most frequent) first, the id breaking ties. */
export const ERROR_ORDER: Record<ErrorSort, { column: 'last_seen_at' | 'first_seen_at' | 'events_count'; value: (row: ErrorTrackingErrorRow) => string | number }> = {
  last_seen: { column: 'last_seen_at', value: (row) => row.last_seen_at },
  first_seen: { column: 'first_seen_at', value: (row) => row.first_seen_at },
  frequency: { column: 'events_count', value: (row) => row.events_count },
};

export async function countErrors(db: Kysely<DB>, projectId: number, filters: ErrorFilters): Promise<number> {
  const row = await projectErrors(db, projectId, filters)
    .clearSelect()
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function findError(db: Kysely<DB>, projectId: number, errorId: number): Promise<ErrorTrackingErrorRow | null> {
  return (await db.selectFrom('error_tracking_errors').selectAll().where('project_id', '=', projectId).where('id', '=', errorId).executeTakeFirst()) ?? null;
}

/** The error's most recent event. */
export async function latestEvent(db: Kysely<DB>, errorId: number): Promise<ErrorTrackingErrorEventRow | null> {
  return (
    (await db.selectFrom('error_tracking_error_events').selectAll().where('error_id', '=', errorId).orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null
  );
}
