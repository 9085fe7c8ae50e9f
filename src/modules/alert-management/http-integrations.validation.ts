// The rules of an HTTP integration's fields, in the platform's words (14.x
// AlertManagement::HttpIntegration and the EE mutations' argument checks), for the REST routes
// and the GraphQL mutations alike. Each reader names the parameter as its caller spells it.
import type { FieldErrors } from '../../core/errors.ts';
import type { AlertManagementHttpIntegrationRow } from '../../db/schema.ts';
import { type AttributeMapping, type FieldMapping, type JsonObject, type MappableField, type MappingType, PAYLOAD_MAX_BYTES, PAYLOAD_MAX_DEPTH, blank, isJsonObject, jsonNestingDepth } from './alert-payload.ts';

export const NAME_MAX = 255;
export const DEFAULT_NAME_SLUG = 'http-endpoint';

/** The model's failures of a name, by field; empty when it is valid. */
export function nameErrors(name: string): FieldErrors {
  if (blank(name)) return { name: ["can't be blank"] };
  if (Array.from(name).length > NAME_MAX) return { name: [`is too long (maximum is ${NAME_MAX} characters)`] };
  return {};
}

/** The model's failures as full messages ("Name can't be blank"), as the mutations answer them. */
export function fullMessages(errors: FieldErrors): string[] {
  return Object.entries(errors).flatMap(([field, messages]) => messages.map((m) => `${field.charAt(0).toUpperCase()}${field.slice(1).replace(/_/g, ' ')} ${m}`));
}

/** The payload example given (an object, or its JSON text), or why it is refused: not an object, or over the payload limits. */
export function payloadExampleProblem(value: unknown): { example: JsonObject } | { problem: 'invalid' | 'too_big' } {
  let text: string;
  let parsed: unknown;
  if (typeof value === 'string') {
    text = value;
    try {
      parsed = blank(value) ? {} : JSON.parse(value);
    } catch {
      return { problem: 'invalid' };
    }
  } else {
    parsed = value;
    text = JSON.stringify(value) ?? '';
  }
  if (!isJsonObject(parsed)) return { problem: 'invalid' };
  if (Buffer.byteLength(text) > PAYLOAD_MAX_BYTES || jsonNestingDepth(text) > PAYLOAD_MAX_DEPTH) return { problem: 'too_big' };
  return { example: parsed };
}

export interface FieldMappingInput {
  field_name: MappableField;
  path: unknown;
  type: MappingType;
  label?: string | null;
}

/** A path of keys (text) and array indexes (whole numbers from 0), at least one. */
function pathOf(value: unknown): FieldMapping['path'] | null {
  if (!Array.isArray(value) || value.length === 0 || value.length > PAYLOAD_MAX_DEPTH) return null;
  const ok = value.every((s) => (typeof s === 'string' && s !== '') || (typeof s === 'number' && Number.isSafeInteger(s) && s >= 0));
  return ok ? (value as FieldMapping['path']) : null;
}

/** The stored mapping of the given field mappings; null when a path is not a list of keys and indexes. */
export function attributeMappingOf(inputs: readonly FieldMappingInput[]): AttributeMapping | null {
  const mapping: AttributeMapping = {};
  for (const input of inputs) {
    const path = pathOf(input.path);
    if (!path) return null;
    mapping[input.field_name] = { path, type: input.type, label: input.label ?? null };
  }
  return mapping;
}

/** The name as its address shows it (the platform's slugify): lower case, other characters as dashes, at most 63 long. */
export function nameSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
  return slug === '' ? DEFAULT_NAME_SLUG : slug;
}

/** The custom mapping an integration keeps. */
export const mappingOf = (row: Pick<AlertManagementHttpIntegrationRow, 'payload_attribute_mapping'>): AttributeMapping => JSON.parse(row.payload_attribute_mapping) as AttributeMapping;
/** The payload example an integration keeps. */
export const payloadExampleOf = (row: Pick<AlertManagementHttpIntegrationRow, 'payload_example'>): JsonObject => JSON.parse(row.payload_example) as JsonObject;
