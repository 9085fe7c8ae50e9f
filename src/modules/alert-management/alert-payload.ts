// What an alert payload says, read as the platform reads it (14.x Gitlab::AlertManagement::Payload,
// spec Part 1 §2.18): pure functions from a parsed JSON payload to an alert's fields.
//
// Generic payloads (HTTP integrations): every property optional; `title` defaults to "New: Alert";
// `severity` is matched case-insensitively, and anything else (or nothing) is `critical`; `hosts`
// is a string or an array (flattened, at most 255 characters in all); `start_time` defaults to now;
// a parseable `end_time` resolves the alert. An explicit `fingerprint` (a string or an array) groups
// repeated payloads; without one, the whole payload less `start_time`, `end_time` and `hosts` does
// (the premium rule, which Quarry applies). A custom mapping of fields (premium) takes each field
// from its own path first, falling back to the standard property.
//
// Prometheus Alertmanager payloads (`version: "4"` with the webhook's keys) carry one alert per
// entry of `alerts`, read from its labels and annotations.
import { createHash } from 'node:crypto';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const STATUSES = ['triggered', 'acknowledged', 'resolved', 'ignored'] as const;
export type AlertStatus = (typeof STATUSES)[number];

export const DEFAULT_TITLE = 'New: Alert';
export const TITLE_MAX = 200;
export const DESCRIPTION_MAX = 1000;
export const SERVICE_MAX = 100;
export const TOOL_MAX = 100;
export const HOSTS_MAX = 255;
export const PROMETHEUS_TOOL = 'Prometheus';

/** The alert fields a custom mapping may take from elsewhere in the payload, by their standard property. */
export const MAPPABLE_FIELDS = [
  'title',
  'description',
  'start_time',
  'end_time',
  'service',
  'monitoring_tool',
  'hosts',
  'severity',
  'fingerprint',
  'gitlab_environment_name',
] as const;
export type MappableField = (typeof MAPPABLE_FIELDS)[number];
export const MAPPING_TYPES = ['array', 'datetime', 'string'] as const;
export type MappingType = (typeof MAPPING_TYPES)[number];

export interface FieldMapping {
  path: (string | number)[];
  type: MappingType;
  label: string | null;
}
export type AttributeMapping = Partial<Record<MappableField, FieldMapping>>;

export type JsonObject = { [key: string]: unknown };

/** An alert's fields as a payload gives them. */
export interface AlertAttributes {
  title: string;
  description: string | null;
  service: string | null;
  monitoringTool: string | null;
  hosts: string[];
  severity: Severity;
  startedAt: string;
  /** The time that resolves the alert; null for a firing payload. */
  endedAt: string | null;
  fingerprint: string | null;
}

export const isJsonObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Ruby's `blank?`: nil, false, whitespace-only text, an empty array or hash. */
export function blank(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  if (isJsonObject(value)) return Object.keys(value).length === 0;
  return false;
}

const present = (value: unknown): unknown => (blank(value) ? null : value);

/** A Ruby string literal as `inspect` writes it. */
function inspectString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\u001b') out += '\\e';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).toUpperCase().padStart(2, '0')}`;
    else out += ch;
  }
  return `${out.replace(/#(?=[{$@])/g, '\\#')}"`;
}

/** A JSON value as Ruby's `inspect` writes the value the platform parses it into. */
export function rubyInspect(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return inspectString(value);
  if (typeof value === 'number') return rubyNumber(value);
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(rubyInspect).join(', ')}]`;
  if (isJsonObject(value)) return `{${Object.entries(value).map(([k, v]) => `${inspectString(k)}=>${rubyInspect(v)}`).join(', ')}}`;
  return String(value);
}

function rubyNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return String(n);
  const abs = Math.abs(n);
  // Ruby writes floats from 1e16 up, and below 1e-4, in exponent form with two digits at least.
  if (abs >= 1e16 || (abs < 1e-4 && abs !== 0)) {
    const [mantissa, exponent] = n.toExponential().split('e');
    const sign = exponent.startsWith('-') ? '-' : '+';
    return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${sign}${exponent.replace(/^[+-]/, '').padStart(2, '0')}`;
  }
  const text = String(n);
  return text.includes('.') ? text : `${text}.0`;
}

/** Ruby's `to_s` of the value: text as it is, nil as nothing, other values as `inspect` writes them. */
export function rubyText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return rubyInspect(value);
}

/** Rails' `truncate`: at most `max` characters, ending with "..." when cut. */
export function truncate(text: string, max: number, omission = '...'): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return chars.slice(0, Math.max(0, max - omission.length)).join('') + omission;
}

/** Ruby's `dig`: hashes by key, arrays by integer index; null on a miss or a scalar in the way. */
export function dig(value: unknown, path: readonly (string | number)[]): unknown {
  let current: unknown = value;
  for (const segment of path) {
    if (Array.isArray(current)) {
      if (typeof segment !== 'number') return null;
      current = current.at(segment);
    } else if (isJsonObject(current)) {
      if (typeof segment !== 'string' || !Object.hasOwn(current, segment)) return null;
      current = current[segment];
    } else {
      return null;
    }
    if (current === undefined) return null;
  }
  return current ?? null;
}

/** Ruby's `Time.parse(value).utc` as an ISO timestamp; null for what it cannot read (and for numbers, which it refuses). */
export function parseTime(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  // Text without a digit names no time; bare numbers are no date the platform reads.
  if (!/\d/.test(text) || /^[+-]?\d+(\.\d+)?$/.test(text)) return null;
  // A date and time without an offset is read as UTC, the platform's zone.
  const iso = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(text) ? `${text.replace(' ', 'T')}${text.length > 10 ? 'Z' : 'T00:00:00Z'}` : text;
  const time = Date.parse(iso);
  if (!Number.isFinite(time)) return null;
  const date = new Date(time);
  return date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999 ? null : date.toISOString();
}

/** SHA-1 hex of what identifies an alert: an array's flattened items' text joined, anything else's text. */
export function fingerprintOf(value: unknown): string | null {
  if (blank(value)) return null;
  const text = Array.isArray(value) ? (value.flat(Infinity) as unknown[]).map(rubyText).join('') : rubyText(value);
  return createHash('sha1').update(text).digest('hex');
}

/** The severity a raw value names, case-insensitively; `critical` for anything else. */
export function severityOf(raw: unknown, extra: Readonly<Record<string, Severity>> = {}): Severity {
  const key = rubyText(raw).toLowerCase();
  // Spec Part 1 §2.18 lists `unknown` among the severities a payload may name (the 14.x code's map lacks it).
  if ((SEVERITIES as readonly string[]).includes(key)) return key as Severity;
  return Object.hasOwn(extra, key) ? (extra[key] as Severity) : 'critical';
}

/** Ruby's `Array(hosts).flatten` as text, cut to 255 characters in all. */
export function hostsOf(raw: unknown): string[] {
  if (blank(raw)) return [];
  const list = Array.isArray(raw) ? raw : isJsonObject(raw) ? Object.entries(raw) : [raw];
  const hosts = (list.flat(Infinity) as unknown[]).filter((h) => h !== null && h !== undefined).map(rubyText);
  if (hosts.join('').length <= HOSTS_MAX) return hosts;
  const kept: string[] = [];
  for (const host of hosts) {
    const remaining = HOSTS_MAX - kept.join('').length;
    if (remaining <= 0) break;
    kept.push(truncate(host, remaining, ''));
  }
  return kept;
}

const textOrNull = (value: unknown, max: number): string | null => {
  if (blank(value)) return null;
  const text = truncate(rubyText(value), max);
  return blank(text) ? null : text;
};

const PAYLOAD_FINGERPRINT_EXCLUDED = new Set(['start_time', 'end_time', 'hosts']);

/** The fingerprint of a generic payload without an explicit one: the payload less its times and hosts. */
function wholePayloadFingerprint(payload: JsonObject): string | null {
  const rest = Object.fromEntries(Object.entries(payload).filter(([key]) => !PAYLOAD_FINGERPRINT_EXCLUDED.has(key)));
  if (Object.values(rest).every(blank)) return null;
  return createHash('sha1').update(rubyInspect(rest)).digest('hex');
}

/** A generic payload's fields, through the integration's custom mapping when it has one. */
export function genericAttributes(payload: JsonObject, mapping: AttributeMapping, now: Date): AlertAttributes {
  /** The mapped value when the mapping finds one, else the standard property's. */
  const field = (name: MappableField): unknown => {
    const mapped = mapping[name];
    if (mapped) {
      let value = dig(payload, mapped.path);
      if (!blank(value) && mapped.type === 'datetime') value = parseTime(value);
      if (!blank(value)) return value;
    }
    return payload[name] ?? null;
  };
  const time = (name: 'start_time' | 'end_time'): string | null => {
    const mapped = mapping[name];
    if (mapped) {
      const parsed = parseTime(dig(payload, mapped.path));
      if (parsed) return parsed;
    }
    return parseTime(payload[name]);
  };
  const explicit = field('fingerprint');
  return {
    title: textOrNull(field('title'), TITLE_MAX) ?? DEFAULT_TITLE,
    description: textOrNull(field('description'), DESCRIPTION_MAX),
    service: textOrNull(field('service'), SERVICE_MAX),
    monitoringTool: textOrNull(field('monitoring_tool'), TOOL_MAX),
    hosts: hostsOf(field('hosts')),
    severity: severityOf(field('severity')),
    startedAt: time('start_time') ?? now.toISOString(),
    endedAt: time('end_time'),
    fingerprint: present(explicit) === null ? wholePayloadFingerprint(payload) : fingerprintOf(explicit),
  };
}

// ---- Prometheus Alertmanager --------------------------------------------------------------------

/** The keys of an Alertmanager webhook payload, all required, at version 4. */
const PROMETHEUS_KEYS = ['version', 'groupKey', 'status', 'receiver', 'groupLabels', 'commonLabels', 'commonAnnotations', 'externalURL', 'alerts'];
/** More alerts than this in one notification are left out, as the platform does to protect itself. */
export const PROMETHEUS_MAX_ALERTS = 100;

/** Severity words Prometheus rules use, beyond the platform's own. */
const PROMETHEUS_SEVERITIES: Readonly<Record<string, Severity>> = {
  s1: 'critical',
  s2: 'high',
  s3: 'medium',
  s4: 'low',
  s5: 'info',
  p1: 'critical',
  p2: 'high',
  p3: 'medium',
  p4: 'low',
  p5: 'info',
  debug: 'info',
  information: 'info',
  notice: 'info',
  warn: 'low',
  warning: 'low',
  minor: 'low',
  error: 'medium',
  major: 'high',
  emergency: 'critical',
  fatal: 'critical',
  alert: 'medium',
  page: 'high',
};

/** Whether the payload is an Alertmanager notification, which the same address accepts. */
export function isPrometheusPayload(payload: JsonObject): boolean {
  return PROMETHEUS_KEYS.every((key) => Object.hasOwn(payload, key)) && payload.version === '4';
}

/** The `g0.expr` query of an alert's generator URL. */
function fullQuery(generatorUrl: unknown): string | null {
  if (typeof generatorUrl !== 'string') return null;
  try {
    return new URL(generatorUrl).searchParams.get('g0.expr');
  } catch {
    return null;
  }
}

/** One alert of an Alertmanager notification; null when it has no title or start (the platform skips it). */
export function prometheusAttributes(alert: unknown, now: Date): (AlertAttributes & { resolved: boolean }) | null {
  if (!isJsonObject(alert)) return null;
  const title = [['annotations', 'title'], ['annotations', 'summary'], ['labels', 'alertname']].map((path) => present(dig(alert, path))).find((v) => v !== null) ?? null;
  const startsAtRaw = present(alert.startsAt);
  if (title === null || startsAtRaw === null) return null;
  const titleText = truncate(rubyText(title), TITLE_MAX);
  const resolved = alert.status === 'resolved';
  return {
    title: titleText,
    description: textOrNull(dig(alert, ['annotations', 'description']), DESCRIPTION_MAX),
    service: null,
    monitoringTool: PROMETHEUS_TOOL,
    hosts: [],
    severity: severityOf(dig(alert, ['labels', 'severity']), PROMETHEUS_SEVERITIES),
    startedAt: parseTime(startsAtRaw) ?? now.toISOString(),
    endedAt: resolved ? (parseTime(alert.endsAt) ?? now.toISOString()) : null,
    fingerprint: fingerprintOf([rubyText(startsAtRaw), rubyText(title), fullQuery(alert.generatorURL) ?? ''].join('/')),
    resolved,
  };
}

// ---- Limits of what is read -----------------------------------------------------------------------

/** The platform's limits of a payload: 1 MB, and nesting at most 100 deep. */
export const PAYLOAD_MAX_BYTES = 1024 * 1024;
export const PAYLOAD_MAX_DEPTH = 100;

/** How deep arrays and objects nest in JSON text, read without parsing it (no recursion, any depth). */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/**
 * A payload object from a request body; null when the body is over the size limit, nests too
 * deep, is not JSON, or is JSON but no object. An empty body is an empty payload.
 */
export function readPayload(body: Buffer): JsonObject | null {
  if (body.length > PAYLOAD_MAX_BYTES) return null;
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  if (jsonNestingDepth(text) > PAYLOAD_MAX_DEPTH) return null;
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v) => (key === '__proto__' ? undefined : v));
  } catch {
    return null;
  }
  return isJsonObject(value) ? value : null;
}
