// Request parameters the way the platform reads them: coercion of strings into typed values,
// GitLab's boolean spellings, `a[]=` arrays and comma lists, `a[b]=` hashes, and failure messages
// "<param> is missing" / "is invalid" / "does not have a valid value" joined with ", ".
// The route's TypeBox schema is the declaration; undeclared parameters are dropped. A schema that
// uses a keyword this file does not enforce is refused when its route is registered.
import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { paramError } from './errors.ts';

const TRUE_WORDS = new Set(['1', 'on', 'On', 'ON', 't', 'true', 'True', 'TRUE', 'T', 'y', 'yes', 'Yes', 'YES', 'Y']);
const FALSE_WORDS = new Set(['0', 'off', 'Off', 'OFF', 'f', 'false', 'False', 'FALSE', 'F', 'n', 'no', 'No', 'NO', 'N']);
const INTEGER = /^\s*[+-]?\d+(_\d+)*\s*$/;
const NUMBER = /^\s*[+-]?(\d[\d_]*)?(\.\d+)?([eE][+-]?\d+)?\s*$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Group rules declared on an object schema, checked after its properties (Grape's order). */
export interface GroupRules {
  'x-mutually-exclusive'?: string[][];
  'x-at-least-one-of'?: string[][];
  'x-exactly-one-of'?: string[][];
  'x-all-or-none-of'?: string[][];
}

type Schema = TSchema & Record<string, any>;

class Invalid {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
}
const INVALID = new Invalid('is invalid');
const NOT_VALID_VALUE = new Invalid('does not have a valid value');

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v);

function present(value: unknown): boolean {
  return value !== undefined;
}

function coerceBoolean(value: unknown): boolean | Invalid {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : INVALID;
  if (typeof value === 'string') {
    if (TRUE_WORDS.has(value)) return true;
    if (FALSE_WORDS.has(value)) return false;
  }
  return INVALID;
}

function coerceInteger(value: unknown): number | Invalid {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : INVALID;
  if (typeof value === 'string' && INTEGER.test(value)) {
    const n = Number(value.trim().replace(/_/g, ''));
    return Number.isSafeInteger(n) ? n : INVALID;
  }
  return INVALID;
}

function coerceNumber(value: unknown): number | Invalid {
  if (typeof value === 'number') return Number.isFinite(value) ? value : INVALID;
  if (typeof value === 'string' && value.trim() !== '' && NUMBER.test(value)) {
    const n = Number(value.trim().replace(/_/g, ''));
    return Number.isFinite(n) ? n : INVALID;
  }
  return INVALID;
}

function coerceString(value: unknown, schema: Schema): string | Invalid {
  let s: string;
  if (typeof value === 'string') s = value;
  else if (typeof value === 'number' || typeof value === 'boolean') s = String(value);
  else if (Buffer.isBuffer(value) && schema['x-file']) s = value.toString('utf8');
  else return INVALID;
  switch (schema.format) {
    case 'date-time': {
      const t = Date.parse(s);
      return Number.isNaN(t) ? INVALID : s;
    }
    case 'date':
      return DATE.test(s) && !Number.isNaN(Date.parse(s)) ? s : INVALID;
    case 'email':
      return EMAIL.test(s) ? s : new Invalid('contains an invalid email address');
  }
  if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(s)) return INVALID;
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    // Characters, as the platform counts them, not UTF-16 units.
    const length = [...s].length;
    if (length < (schema.minLength ?? 0) || length > (schema.maxLength ?? Infinity)) return INVALID;
  }
  if (schema.enum && !schema.enum.includes(s)) return NOT_VALID_VALUE;
  if (schema['x-blank'] === false && s.trim() === '') return new Invalid('is empty');
  return s;
}

/** Coerces one value to its schema; returns the value or an Invalid reason. */
function coerce(value: unknown, schema: Schema, name: string, errors: string[]): unknown {
  if (schema.anyOf) return coerceUnion(value, schema, name);
  if (schema.const !== undefined) return value === schema.const || String(value) === String(schema.const) ? schema.const : NOT_VALID_VALUE;
  switch (schema.type) {
    case 'null':
      return value === null ? null : INVALID;
    case 'boolean':
      return coerceBoolean(value);
    case 'integer':
      return withinBounds(coerceInteger(value), schema);
    case 'number':
      return withinBounds(coerceNumber(value), schema);
    case 'string':
      return coerceString(value, schema);
    case 'array':
      return coerceArray(value, schema, name, errors);
    case 'object':
      if (!isPlainObject(value)) return INVALID;
      return schema.properties ? validateObject(schema, value, name, errors) : coerceRecord(value, schema, name, errors);
    default:
      return value;
  }
}

function withinBounds(n: number | Invalid, schema: Schema): number | Invalid {
  if (n instanceof Invalid) return n;
  if (schema.minimum !== undefined && n < schema.minimum) return NOT_VALID_VALUE;
  if (schema.maximum !== undefined && n > schema.maximum) return NOT_VALID_VALUE;
  if (schema.enum && !schema.enum.includes(n)) return NOT_VALID_VALUE;
  if (schema['x-except']?.includes(n)) return new Invalid('has a value not allowed');
  return n;
}

function coerceUnion(value: unknown, schema: Schema, name: string): unknown {
  const members = schema.anyOf as Schema[];
  if (members.every((m) => m.const !== undefined)) {
    const hit = members.find((m) => m.const === value || String(m.const) === String(value));
    return hit ? hit.const : NOT_VALID_VALUE;
  }
  let reason: Invalid = INVALID;
  for (const member of members) {
    const nested: string[] = [];
    const result = coerce(value, member, name, nested);
    if (!(result instanceof Invalid) && nested.length === 0) return result;
    if (result instanceof Invalid && result !== INVALID) reason = result;
  }
  return reason;
}

function coerceArray(value: unknown, schema: Schema, name: string, errors: string[]): unknown {
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (isPlainObject(value)) items = Object.values(value); // a[0]=x&a[1]=y beyond qs's array limit
  else if (typeof value === 'string' && schema['x-comma']) items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  else if (value === null) items = [];
  else items = [value];
  const out: unknown[] = [];
  for (const item of items) {
    const result = coerce(item, schema.items as Schema, `${name}[]`, errors);
    if (result instanceof Invalid) return result;
    out.push(result);
  }
  if (out.length < (schema.minItems ?? 0) || out.length > (schema.maxItems ?? Infinity)) return INVALID;
  return out;
}

function coerceRecord(value: Record<string, unknown>, schema: Schema, name: string, errors: string[]): unknown {
  const valueSchema: Schema | undefined = schema.patternProperties
    ? (Object.values(schema.patternProperties)[0] as Schema)
    : typeof schema.additionalProperties === 'object'
      ? schema.additionalProperties
      : undefined;
  if (!valueSchema) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const result = coerce(v, valueSchema, `${name}[${key}]`, errors);
    if (result instanceof Invalid) return result;
    out[key] = result;
  }
  return out;
}

function validateObject(schema: Schema, data: Record<string, unknown>, prefix: string, errors: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const required = new Set<string>(schema.required ?? []);
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const [key, propSchema] of Object.entries(properties)) {
    const name = prefix ? `${prefix}[${key}]` : key;
    let value = Object.hasOwn(data, key) ? data[key] : undefined;
    // An empty string for a typed, non-string parameter counts as not given.
    if (value === '' && propSchema.type !== 'string' && !propSchema.anyOf?.some((m: Schema) => m.type === 'string')) value = undefined;
    if (!present(value)) {
      if (required.has(key)) errors.push(`${name} is missing`);
      // Only a structured default needs a copy of its own, so that no request can alter it.
      else if (propSchema.default !== undefined) out[key] = typeof propSchema.default === 'object' ? structuredClone(propSchema.default) : propSchema.default;
      continue;
    }
    if (value === null && !acceptsNull(propSchema)) {
      if (required.has(key)) errors.push(`${name} is missing`);
      continue;
    }
    const result = coerce(value, propSchema, name, errors);
    if (result instanceof Invalid) errors.push(`${name} ${result.reason}`);
    else out[key] = result;
  }
  checkGroups(schema as GroupRules, data, prefix, errors);
  return out;
}

function acceptsNull(schema: Schema): boolean {
  return schema.type === 'null' || schema.type === 'array' || !!schema.anyOf?.some((m: Schema) => m.type === 'null');
}

function checkGroups(rules: GroupRules, data: Record<string, unknown>, prefix: string, errors: string[]): void {
  const given = (k: string) => data[k] !== undefined && data[k] !== null && data[k] !== '';
  const label = (keys: string[]) => keys.map((k) => (prefix ? `${prefix}[${k}]` : k)).join(', ');
  for (const keys of rules['x-mutually-exclusive'] ?? []) {
    if (keys.filter(given).length > 1) errors.push(`${label(keys.filter(given))} are mutually exclusive`);
  }
  for (const keys of rules['x-at-least-one-of'] ?? []) {
    if (!keys.some(given)) errors.push(`${label(keys)} are missing, at least one parameter must be provided`);
  }
  for (const keys of rules['x-exactly-one-of'] ?? []) {
    const n = keys.filter(given).length;
    if (n === 0) errors.push(`${label(keys)} are missing, exactly one parameter must be provided`);
    if (n > 1) errors.push(`${label(keys.filter(given))} are mutually exclusive`);
  }
  for (const keys of rules['x-all-or-none-of'] ?? []) {
    const n = keys.filter(given).length;
    if (n > 0 && n < keys.length) errors.push(`${label(keys)} provide all or none of parameters`);
  }
}

/**
 * Grape's at_least_one_of as its validator counts: a key given at all, whatever its value (a blank
 * or null value counts too, unlike the x-at-least-one-of rule). `given` is what the request sent.
 */
export function requireOneOf(given: Record<string, unknown>, keys: readonly string[]): void {
  if (!keys.some((key) => Object.hasOwn(given, key))) throw paramError(`${keys.join(', ')} are missing, at least one parameter must be provided`);
}

/** Validates and coerces a whole parameter object; throws the platform's 400 on failure. */
export function parseParams<T = Record<string, unknown>>(schema: TSchema, data: unknown): T {
  const errors: string[] = [];
  const value = validateObject(schema as Schema, isPlainObject(data) ? data : {}, '', errors);
  if (errors.length > 0) throw paramError(errors.join(', '));
  return value as T;
}

// ---- What a parameter schema may say ---------------------------------------------------------

/** Words that change nothing in validation. `default` applies to an object's properties. */
const ANNOTATIONS = ['description', 'title', 'default', 'examples'];
/** The keywords coerce() implements, by type; `const` is checked before the type. */
const KEYWORDS: Record<string, readonly string[]> = {
  string: ['format', 'pattern', 'minLength', 'maxLength', 'enum', 'x-blank', 'x-file'],
  integer: ['minimum', 'maximum', 'enum', 'x-except'],
  number: ['minimum', 'maximum', 'enum', 'x-except'],
  boolean: [],
  null: [],
  array: ['items', 'minItems', 'maxItems', 'x-comma'],
  object: ['properties', 'required', 'patternProperties', 'additionalProperties', 'x-mutually-exclusive', 'x-at-least-one-of', 'x-exactly-one-of', 'x-all-or-none-of'],
};
const FORMATS = new Set(['date-time', 'date', 'email']);
/** The one pattern of a TypeBox Record with string keys: any key. */
const ANY_KEY = new Set(['^(.*)$', '^.*$']);

/** The keywords a schema may have, by its type (none: a union or a const). */
const ALLOWED = new Map<string | undefined, ReadonlySet<string>>(
  [undefined, ...Object.keys(KEYWORDS)].map((type) => [type, new Set([...ANNOTATIONS, 'type', 'anyOf', 'const', ...(type === undefined ? [] : KEYWORDS[type])])]),
);
/** Schemas found sound already: routes share many parts (an id, the pagination parameters). */
const SOUND = new WeakSet<object>();

/**
 * Refuses, when a route is registered, a schema that says something parseParams would not
 * enforce: an unknown keyword, a keyword of another type, a format it does not know.
 */
export function checkParamSchema(schema: TSchema, where: string): void {
  if (SOUND.has(schema)) return;
  const s = schema as Schema;
  const refuse = (what: string) => {
    throw new Error(`${where}: the parameter validator does not implement ${what}`);
  };
  const type: unknown = s.type;
  if (s.anyOf !== undefined) {
    if (type !== undefined) refuse(`"type" beside "anyOf"`);
    (s.anyOf as TSchema[]).forEach((member, i) => checkParamSchema(member, `${where}.anyOf[${i}]`));
  } else if (type !== undefined && (typeof type !== 'string' || !Object.hasOwn(KEYWORDS, type))) {
    refuse(`type ${JSON.stringify(type)}`);
  }
  const allowed = ALLOWED.get(type as string | undefined) as ReadonlySet<string>;
  for (const keyword of Object.keys(s)) if (!allowed.has(keyword)) refuse(`"${keyword}"${type === undefined ? '' : ` for type ${type}`}`);

  if (s.format !== undefined && !FORMATS.has(s.format)) refuse(`format "${s.format}"`);
  if (s.pattern !== undefined) new RegExp(s.pattern);
  if (s.items !== undefined) checkParamSchema(s.items, `${where}[]`);
  for (const [key, property] of Object.entries((s.properties ?? {}) as Record<string, TSchema>)) checkParamSchema(property, `${where}.${key}`);
  if (s.patternProperties !== undefined) {
    const patterns = Object.keys(s.patternProperties);
    if (patterns.length !== 1 || !ANY_KEY.has(patterns[0])) refuse(`patternProperties other than any key`);
    checkParamSchema(s.patternProperties[patterns[0]], `${where}[*]`);
  }
  if (s.additionalProperties !== undefined && s.additionalProperties !== false) {
    // Declared properties drop the others: a schema for them would never be applied.
    if (s.properties !== undefined || s.patternProperties !== undefined) refuse(`"additionalProperties" beside declared properties`);
    if (typeof s.additionalProperties === 'object') checkParamSchema(s.additionalProperties, `${where}[*]`);
  }
  SOUND.add(schema);
}

/** Fastify validator compiler: every route schema is checked once, then goes through parseParams. */
export function validatorCompiler({ schema, method, url, httpPart }: { schema: TSchema; method?: string; url?: string; httpPart?: string }) {
  checkParamSchema(schema, `${method ?? ''} ${url ?? ''} ${httpPart ?? 'schema'}`.trim());
  return (data: unknown) => {
    try {
      return { value: parseParams(schema, data) };
    } catch (error) {
      return { error: error as Error };
    }
  };
}

// ---- Schema builders for parameters that every module shares --------------------------------

/** A GitLab boolean parameter (true/false, 1/0, yes/no, on/off, t/f, y/n). */
export const Bool = (options: { default?: boolean; description?: string } = {}) => Type.Boolean(options);

/** An array parameter given as `name[]=a&name[]=b`, a JSON array, or a comma-separated list. */
export const CommaList = <T extends TSchema>(items: T, options: { description?: string } = {}) =>
  Type.Array(items, { ...options, 'x-comma': true });

/** Text given as a string or as an uploaded file (a multipart part), read as UTF-8: Grape's `types: [File, String]`. */
export const FileOrString = (options: { description?: string } = {}) => Type.String({ ...options, 'x-file': true });

/** Values out of a closed list: "does not have a valid value" otherwise. */
export const OneOf = <const T extends readonly string[]>(values: T, options: { default?: T[number]; description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Object schema with group rules (mutually exclusive, at least one of, …). */
export const Params = <T extends TProperties>(properties: T, rules: GroupRules = {}): TObject<T> =>
  Type.Object(properties, rules as Record<string, unknown>);

/** `:id` of a project or group: an integer or a URL-encoded full path. */
export const IdOrPath = Type.String({ minLength: 1 });

/** A request part (params, query, body) as a record of its fields; anything but an object reads as empty. */
export function fieldsOf(part: unknown): Record<string, unknown> {
  return typeof part === 'object' && part !== null ? Object.fromEntries(Object.entries(part)) : {};
}

/** Splits `:id` into a numeric id or a full path, the way the platform resolves it. */
export function parseIdOrPath(raw: string): { id: number } | { path: string } | null {
  if (/^-?\d+$/.test(raw)) return { id: Number(raw) };
  return raw.length > 0 ? { path: raw } : null;
}
