// Rows → entities. The settings' external URL and default project name come from the external
// tracker's API address (`<host>/api/0/projects/<org>/<project>/`); a client key's DSN points the
// SDKs at this instance's collector for the project.
import type { ErrorTrackingClientKeyRow, ErrorTrackingErrorEventRow, ErrorTrackingErrorRow, ErrorTrackingSettingRow } from '../../db/schema.ts';
import type { ClientKey, ErrorDetail, ErrorEvent, ErrorStatus, Settings, StackFrame, TrackedError } from './error-tracking.schemas.ts';

const API_PATH = /\/api\/0\/projects\/([^/]*)\/([^/]*)\/?$/;

/** The org and project slugs of an external tracker's API address, when it has that form. */
export function apiUrlSlugs(apiUrl: string): { organization: string; project: string } | null {
  let path: string;
  try {
    path = new URL(apiUrl).pathname;
  } catch {
    return null;
  }
  const match = API_PATH.exec(path);
  return match ? { organization: decodeURIComponent(match[1]), project: decodeURIComponent(match[2]) } : null;
}

/** Rails' titleize of a slug: `my-app_name` → `My App Name`. */
function titleize(slug: string): string {
  return slug
    .replace(/[-_]+/g, ' ')
    .trim()
    .toLowerCase()
    .replace(/\b[a-z]/g, (c) => c.toUpperCase());
}

export function presentSettings(row: ErrorTrackingSettingRow): Settings {
  const slugs = row.api_url ? apiUrlSlugs(row.api_url) : null;
  return {
    active: Boolean(row.enabled),
    project_name: row.project_name ?? (slugs?.project ? titleize(slugs.project) : null),
    tracker_external_url: row.api_url ? row.api_url.replace('api/0/projects/', '') : null,
    api_url: row.api_url,
    integrated: Boolean(row.integrated),
  };
}

/** `<scheme>://<public key>@<host>[:port]<relative root>/api/v4/error_tracking/collector/<project id>`. */
export function clientKeyDsn(externalUrl: string, publicKey: string, projectId: number): string {
  const url = new URL(externalUrl);
  const root = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${publicKey}@${url.host}${root}/api/v4/error_tracking/collector/${projectId}`;
}

export function presentClientKey(row: ErrorTrackingClientKeyRow, externalUrl: string): ClientKey {
  return { id: row.id, active: Boolean(row.active), public_key: row.public_key, tracker_dsn: clientKeyDsn(externalUrl, row.public_key, row.project_id) };
}

export function presentError(row: ErrorTrackingErrorRow): TrackedError {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    actor: row.actor,
    platform: row.platform,
    status: row.status as ErrorStatus,
    events_count: Number(row.events_count),
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : null);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The frames of an event's first exception, as the SDK sent them (oldest call first). */
export function stackTraceOf(payload: string): StackFrame[] {
  let event: unknown;
  try {
    event = JSON.parse(payload);
  } catch {
    return [];
  }
  if (!isObject(event)) return [];
  const values = isObject(event.exception) ? event.exception.values : undefined;
  const exception = Array.isArray(values) ? values[0] : undefined;
  const frames = isObject(exception) && isObject(exception.stacktrace) && Array.isArray(exception.stacktrace.frames) ? exception.stacktrace.frames : [];
  return frames.filter(isObject).map((f) => ({
    filename: str(f.filename),
    function: str(f.function),
    module: str(f.module),
    lineno: int(f.lineno),
    colno: int(f.colno),
    in_app: typeof f.in_app === 'boolean' ? f.in_app : null,
  }));
}

export function presentEvent(row: ErrorTrackingErrorEventRow): ErrorEvent {
  return { id: row.id, description: row.description, environment: row.environment, level: row.level, occurred_at: row.occurred_at, stack_trace: stackTraceOf(row.payload) };
}

export function presentErrorDetail(row: ErrorTrackingErrorRow, event: ErrorTrackingErrorEventRow | null): ErrorDetail {
  return { ...presentError(row), latest_event: event ? presentEvent(event) : null };
}
