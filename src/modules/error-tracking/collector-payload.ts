// What the collector reads from an SDK's request: the client key (the `sentry_key` parameter, or the
// X-Sentry-Auth header), the body (gzip-compressed or not), the items of an envelope, and what an
// event says of its error. Pure: nothing here touches the database.
import { gunzipSync, inflateSync } from 'node:zlib';

/** The request cannot be read: the platform's 400 "Failed to parse sentry request". */
export class UnreadableRequest extends Error {}

/**
 * The client key a request names, or null when it names none (the caller then answers 404). A
 * request with neither the parameter nor the header cannot be read, as on the platform.
 */
export function publicKeyOf(params: Record<string, unknown>, header: string | string[] | undefined): string | null {
  const param = params.sentry_key;
  if (typeof param === 'string' && param !== '') return param;
  const auth = Array.isArray(header) ? header[0] : header;
  if (auth === undefined) throw new UnreadableRequest();
  return /sentry_key=(\w+)/.exec(auth)?.[1] ?? null;
}

/** The body as sent, decompressed when its Content-Encoding says so; at most `limit` bytes once decompressed. */
export function decodeBody(body: unknown, encoding: string | string[] | undefined, limit: number): Buffer {
  const raw = Buffer.isBuffer(body) ? body : typeof body === 'string' ? Buffer.from(body) : Buffer.alloc(0);
  const name = (Array.isArray(encoding) ? encoding[0] : (encoding ?? '')).trim().toLowerCase();
  try {
    if (name === 'gzip' || name === 'x-gzip') return gunzipSync(raw, { maxOutputLength: limit });
    if (name === 'deflate') return inflateSync(raw, { maxOutputLength: limit });
  } catch {
    throw new UnreadableRequest();
  }
  if (name !== '' && name !== 'identity') throw new UnreadableRequest();
  return raw;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'), (key, value) => (key === '__proto__' ? undefined : value));
  } catch {
    throw new UnreadableRequest();
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON object body (the store endpoint's). */
export function readJsonObject(bytes: Buffer): Record<string, unknown> {
  const value = parseJson(bytes);
  if (!isObject(value)) throw new UnreadableRequest();
  return value;
}

export interface EnvelopeItem {
  type: string;
  /** The item's payload: JSON for events and transactions, raw bytes for anything else. */
  payload: Buffer;
}

/**
 * The items of an envelope: a header line, then for each item a header line (with `type`, and
 * `length` in bytes when the payload may hold newlines) and its payload.
 */
export function readEnvelope(bytes: Buffer): EnvelopeItem[] {
  let at = 0;
  const line = (): Buffer => {
    const end = bytes.indexOf(0x0a, at);
    const stop = end === -1 ? bytes.length : end;
    const text = bytes.subarray(at, stop);
    at = stop + 1;
    return text;
  };
  const header = parseJson(line());
  if (!isObject(header)) throw new UnreadableRequest();
  const items: EnvelopeItem[] = [];
  while (at < bytes.length) {
    const headerLine = line();
    if (headerLine.toString('utf8').trim() === '') continue;
    const item = parseJson(headerLine);
    if (!isObject(item) || typeof item.type !== 'string') throw new UnreadableRequest();
    let payload: Buffer;
    if (item.length !== undefined) {
      if (typeof item.length !== 'number' || !Number.isSafeInteger(item.length) || item.length < 0 || at + item.length > bytes.length) throw new UnreadableRequest();
      payload = bytes.subarray(at, at + item.length);
      at += item.length;
      if (bytes[at] === 0x0a) at += 1;
    } else {
      payload = line();
    }
    items.push({ type: item.type, payload });
  }
  return items;
}

export interface CollectedEvent {
  name: string;
  description: string;
  actor: string;
  platform: string;
  /** ISO 8601, milliseconds. */
  occurredAt: string;
  environment: string | null;
  level: string | null;
}

const text = (v: unknown, max = 65_535): string | null => (typeof v === 'string' ? v.slice(0, max) : typeof v === 'number' ? String(v) : null);

/** The event's time: ISO text or seconds since the epoch (as newer SDKs send it); now when absent or unreadable. */
function occurredAt(value: unknown, now: Date): string {
  let ms = Number.NaN;
  if (typeof value === 'number') ms = value * 1000;
  else if (typeof value === 'string') ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value.endsWith('Z') || /[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
  // Ten years either way is a clock gone wrong, not an event.
  if (!Number.isFinite(ms) || Math.abs(ms - now.getTime()) > 10 * 365 * 86_400_000) return now.toISOString();
  return new Date(ms).toISOString();
}

/**
 * What an event says of its error, grouped as the platform groups events: the first exception's
 * type and value, the culprit (the transaction, else `function(module)` of the exception's last
 * frame) and the platform. Null for an event without an exception, which the collector refuses.
 */
export function readEvent(event: Record<string, unknown>, now: Date): CollectedEvent | null {
  const values = isObject(event.exception) ? event.exception.values : Array.isArray(event.exception) ? event.exception : undefined;
  const exception = Array.isArray(values) ? values[0] : undefined;
  if (!isObject(exception)) return null;
  const name = text(exception.type, 255);
  if (!name) return null;
  const frames = isObject(exception.stacktrace) && Array.isArray(exception.stacktrace.frames) ? exception.stacktrace.frames : [];
  const last = frames.at(-1);
  const actor = text(event.transaction) || (isObject(last) ? `${text(last.function) ?? ''}(${text(last.module) ?? ''})` : text(event.culprit) ?? '');
  return {
    name,
    description: text(exception.value) ?? '',
    actor,
    platform: text(event.platform, 255) ?? '',
    occurredAt: occurredAt(event.timestamp, now),
    environment: text(event.environment, 255),
    level: text(event.level, 255),
  };
}
