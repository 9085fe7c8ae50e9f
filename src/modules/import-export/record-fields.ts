// How the records of an export tree are read, field by field, whatever restores them (a project's
// or a group's): values of the wrong type are taken as absent, timestamps are normalised, and a
// record that cannot hold (a blank title, a text too long) throws Invalid, which its restorer
// reports as a failed relation while the rest goes in.
import type { JsonObject } from './ndjson.ts';

/** A record the restorer leaves out, and why (kept as an import failure). */
export interface RelationFailure {
  relation_key: string;
  relation_index: number | null;
  exception_class: string;
  exception_message: string;
  source: string;
}

/** A record that does not hold: reported, skipped, the import goes on. */
export class Invalid extends Error {}

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const int = (v: unknown): number | null => (typeof v === 'number' && Number.isSafeInteger(v) ? v : typeof v === 'string' && /^\d{1,15}$/.test(v) ? Number(v) : null);
export const boolish = (v: unknown): boolean => v === true || v === 1 || v === 'true';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const COLOR = /^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$/;
const MAX_TITLE = 255;
const MAX_TEXT = 1_000_000;

/** A timestamp as stored (ISO 8601 UTC with milliseconds), or the fallback. */
export function time(v: unknown, fallback: string): string {
  const s = str(v);
  if (s === null || !TIMESTAMP.test(s)) return fallback;
  const t = Date.parse(s);
  return Number.isNaN(t) ? fallback : new Date(t).toISOString();
}
export const timeOrNull = (v: unknown): string | null => (str(v) === null ? null : time(v, '') || null);
export const dateOrNull = (v: unknown): string | null => {
  const s = str(v);
  return s !== null && DATE.test(s) && !Number.isNaN(Date.parse(s)) ? s : null;
};

export function required(v: unknown, field: string, max = MAX_TITLE): string {
  const s = str(v);
  if (s === null || s.trim() === '') throw new Invalid(`${field} can't be blank`);
  if (s.length > max) throw new Invalid(`${field} is too long (maximum is ${max} characters)`);
  return s;
}

export function text(v: unknown, field: string): string | null {
  const s = str(v);
  if (s !== null && s.length > MAX_TEXT) throw new Invalid(`${field} is too long (maximum is ${MAX_TEXT} characters)`);
  return s;
}

export const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter((x): x is JsonObject => x !== null && typeof x === 'object' && !Array.isArray(x)) : []);
export const object = (v: unknown): JsonObject | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null);

/** The failure kept for an Invalid record (the platform's process_relation_item! entry). */
export function invalidRecord(relation: string, index: number | null, error: Invalid, source = 'process_relation_item!'): RelationFailure {
  return { relation_key: relation, relation_index: index, exception_class: 'ActiveRecord::RecordInvalid', exception_message: `Validation failed: ${error.message}`, source };
}
