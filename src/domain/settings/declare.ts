// Settings declared once: each names its type, default, column, entity field and parameter, and
// everything else is derived from that line — the row's decoding, the parameter schema (TypeBox),
// the entity schema and the presenter. A new setting is one line here and a column in a migration.
//
// Reading a row and presenting the values run for every project of a page, so both are compiled
// once into plain functions returning object literals (as fast-json-stringify compiles its
// serializers): built key by key instead, the objects fell into V8's slow dictionary mode and a
// page took several times as long to present.
import { type TOptional, type TSchema, Type } from '@sinclair/typebox';
import { Bool, CommaList, OneOf } from '../../core/params.ts';
import { Literals, Nullable } from '../../core/schema.ts';

/** Which routes accept a setting's parameter: both (default), creation or update only. */
export type ParamRoute = 'create' | 'update';

export interface SettingOptions {
  /** The column that stores it; the setting's name unless given. */
  readonly column?: string;
  /** The entity field that shows it; the setting's name unless given; null: never shown. */
  readonly field?: string | null;
  /** The parameter that sets it; the setting's name unless given; null: no parameter sets it. */
  readonly param?: string | null;
  /** Accepted by this route only. */
  readonly only?: ParamRoute;
  /** Shown only to an audience with this flag set (absent from the entity otherwise). */
  readonly when?: string;
  /** A secret: settable, never shown; its writer stores it encrypted (core/secret-box). */
  readonly secret?: boolean;
  /** Parameters that must come along when this one is sent as true (the platform's `given … requires`). */
  readonly requires?: readonly string[];
}

export interface Setting<T, E extends TSchema = TSchema, P extends TSchema = TSchema> extends SettingOptions {
  readonly default: T;
  /** The field's schema in the entity. */
  readonly entity: E;
  /** The parameter's schema. */
  readonly input: P;
  /** The column's value (0/1 booleans on SQLite, JSON text for lists) → the setting's value. */
  readonly decode: (raw: unknown) => T;
  /** The setting's value → the column's value. */
  readonly encode: (value: T) => unknown;
}

/** Any setting, whatever its types. */
export type AnySetting = Setting<any, TSchema, TSchema>;
export type SettingSpecs = Record<string, AnySetting>;

// ---- Builders ----------------------------------------------------------------------------------

const same = <T>(v: T) => v;
const toBool = (raw: unknown) => Boolean(raw);
const toBoolOrNull = (raw: unknown) => (raw === null || raw === undefined ? null : Boolean(raw));
const toNumber = (raw: unknown) => Number(raw);
const toNumberOrNull = (raw: unknown) => (raw === null || raw === undefined ? null : Number(raw));
const toStrOrNull = (raw: unknown) => (raw === null || raw === undefined ? null : String(raw));

export function bool<const O extends SettingOptions = {}>(value: boolean, options?: O) {
  return { ...options, default: value, entity: Type.Boolean(), input: Bool(), decode: toBool, encode: same } as Setting<boolean, ReturnType<typeof Type.Boolean>, ReturnType<typeof Bool>> & O;
}

/** A boolean that may be unset (null), as the platform's nullable columns. */
export function boolOrNull<const O extends SettingOptions = {}>(value: boolean | null, options?: O) {
  const entity = Nullable(Type.Boolean());
  return { ...options, default: value, entity, input: Bool(), decode: toBoolOrNull, encode: same } as Setting<boolean | null, typeof entity, ReturnType<typeof Bool>> & O;
}

export interface IntegerOptions extends SettingOptions {
  /** Bounds checked as the model's validation (400 with field messages), not as a parameter error. */
  readonly minimum?: number;
  readonly maximum?: number;
  /** The values a parameter may take. */
  readonly values?: readonly number[];
}

function integerInput(options?: IntegerOptions) {
  return Type.Integer(options?.values ? { enum: [...options.values] } : {});
}

export function int<const O extends IntegerOptions = {}>(value: number, options?: O) {
  return { ...options, default: value, entity: Type.Integer(), input: integerInput(options), decode: toNumber, encode: same } as Setting<
    number,
    ReturnType<typeof Type.Integer>,
    ReturnType<typeof Type.Integer>
  > &
    O;
}

export function intOrNull<const O extends IntegerOptions = {}>(value: number | null, options?: O) {
  const entity = Nullable(Type.Integer());
  return { ...options, default: value, entity, input: integerInput(options), decode: toNumberOrNull, encode: same } as Setting<
    number | null,
    typeof entity,
    ReturnType<typeof Type.Integer>
  > &
    O;
}

/** A number that may have a fraction (the platform's float columns). */
export function num<const O extends SettingOptions = {}>(value: number, options?: O) {
  return { ...options, default: value, entity: Type.Number(), input: Type.Number(), decode: toNumber, encode: same } as Setting<
    number,
    ReturnType<typeof Type.Number>,
    ReturnType<typeof Type.Number>
  > &
    O;
}

export function str<const O extends SettingOptions = {}>(value: string, options?: O) {
  return { ...options, default: value, entity: Type.String(), input: Type.String(), decode: (raw: unknown) => String(raw ?? ''), encode: same } as Setting<
    string,
    ReturnType<typeof Type.String>,
    ReturnType<typeof Type.String>
  > &
    O;
}

/** A text that may be unset (null); `values` closes the list of words a parameter may send. */
export function strOrNull<const O extends SettingOptions & { values?: readonly string[] } = {}>(value: string | null, options?: O) {
  const entity = Nullable(Type.String());
  const input = options?.values ? OneOf(options.values) : Type.String();
  return { ...options, default: value, entity, input, decode: toStrOrNull, encode: same } as unknown as Setting<string | null, typeof entity, ReturnType<typeof Type.String>> & O;
}

/** One of a closed list of words, stored as the word. `accepts` narrows what a parameter may set. */
export function oneOf<const V extends readonly string[], const O extends SettingOptions & { accepts?: readonly V[number][] } = {}>(values: V, value: V[number], options?: O) {
  const entity = Literals(values);
  const input = OneOf(options?.accepts ?? values);
  return { ...options, default: value, entity, input, decode: (raw: unknown) => String(raw) as V[number], encode: same } as Setting<V[number], typeof entity, typeof input> & O;
}

/**
 * One of a closed list of words, stored as the platform's integer code for it (feature access
 * levels: 0 disabled … 30 public), so that SQL compares levels as numbers.
 */
export function coded<const C extends Record<string, number>, const O extends SettingOptions & { accepts?: readonly (keyof C & string)[] } = {}>(codes: C, value: keyof C & string, options?: O) {
  const names = Object.keys(codes) as (keyof C & string)[];
  const byCode = new Map<number, keyof C & string>(names.map((name) => [codes[name] as number, name]));
  const entity = Literals(names);
  const input = OneOf(options?.accepts ?? names);
  const decode = (raw: unknown) => byCode.get(Number(raw)) ?? value;
  return { ...options, default: value, entity, input, decode, encode: (v: keyof C & string) => codes[v] as number } as unknown as Setting<keyof C & string, typeof entity, typeof input> & O;
}

/** A list of strings (optionally out of a closed list), stored as JSON text. */
export function list<const O extends SettingOptions & { values?: readonly string[] } = {}>(value: readonly string[], options?: O) {
  const entity = Type.Array(Type.String());
  const input = CommaList(options?.values ? OneOf(options.values) : Type.String());
  const decode = (raw: unknown) => (typeof raw === 'string' ? (JSON.parse(raw) as string[]) : [...value]);
  return { ...options, default: value, entity, input, decode, encode: (v: readonly string[]) => JSON.stringify(v) } as unknown as Setting<readonly string[], typeof entity, typeof input> & O;
}

/** An object of integers by name (storage weights), stored as JSON text. */
export function weights<const O extends SettingOptions = {}>(value: Readonly<Record<string, number>>, options?: O) {
  const entity = Type.Record(Type.String(), Type.Integer());
  const input = Type.Record(Type.String(), Type.Integer());
  const decode = (raw: unknown) => (typeof raw === 'string' ? (JSON.parse(raw) as Record<string, number>) : { ...value });
  return { ...options, default: value, entity, input, decode, encode: (v: Readonly<Record<string, number>>) => JSON.stringify(v) } as Setting<
    Readonly<Record<string, number>>,
    typeof entity,
    typeof input
  > &
    O;
}

// ---- What a declaration derives ------------------------------------------------------------------

export type Values<D extends SettingSpecs> = { -readonly [K in keyof D]: D[K]['default'] };

type FieldOf<K, S> = S extends { secret: true } ? never : S extends { field: null } ? never : S extends { field: infer F extends string } ? F : K;
type ParamOf<K, S, R extends ParamRoute> = S extends { param: null }
  ? never
  : S extends { only: infer Only extends ParamRoute }
    ? Only extends R
      ? ParamName<K, S>
      : never
    : ParamName<K, S>;
type ParamName<K, S> = S extends { param: infer P extends string } ? P : K;

/**
 * The entity fields' schemas, typed loosely: an entity's TypeScript type takes these fields from
 * EntityOf instead, because TypeBox's Static of a large entity with every field typed exactly
 * grows too deep for the compiler.
 */
export type EntityProps<D extends SettingSpecs> = {
  [K in keyof D as FieldOf<K, D[K]>]: D[K] extends { when: string } ? TOptional<TSchema> : TSchema;
};
export type ParamProps<D extends SettingSpecs, R extends ParamRoute> = { [K in keyof D as ParamOf<K, D[K], R>]: TOptional<D[K]['input']> };
/** The entity's fields as values (a field shown to some audiences only may be undefined). */
export type EntityOf<D extends SettingSpecs> = {
  [K in keyof D as FieldOf<K, D[K]>]: D[K] extends { when: string } ? D[K]['default'] | undefined : D[K]['default'];
};

/** Flags of the audience an entity is shown to, for settings declared `when`. */
export type Audience = Readonly<Record<string, boolean>>;

export interface DeclaredSettings<D extends SettingSpecs> {
  readonly table: string;
  readonly specs: D;
  readonly defaults: Readonly<Values<D>>;
  /** The table's row → values; no row (nothing stored yet) reads as the defaults. */
  read(row: Readonly<Record<string, unknown>> | undefined | null): Values<D>;
  /** Values → the columns that store them (only the given ones). */
  columns(values: Partial<Values<D>>): Record<string, unknown>;
  /** Every column with its default, for a new row. */
  defaultColumns(): Record<string, unknown>;
  /** The parameters a route accepts. */
  params<R extends ParamRoute>(route: R): ParamProps<D, R>;
  /** The settings whose parameters were given, from a validated body. */
  fromParams(input: Readonly<Record<string, unknown>>, route: ParamRoute): Partial<Values<D>>;
  /** The entity fields' schemas. */
  readonly entity: EntityProps<D>;
  /** Values → entity fields; `when` fields are left out (undefined) for an audience without the flag. */
  present(values: Values<D>, audience?: Audience): EntityOf<D>;
  /** Column names, for select lists. */
  readonly columnNames: readonly string[];
  /** The model's validation of new values: bounds, with the platform's messages. */
  validate(values: Partial<Values<D>>): Record<string, string[]>;
  /** The first parameter missing beside one sent as true that requires it, if any. */
  missingRequired(input: Readonly<Record<string, unknown>>, route: ParamRoute): string | null;
}

const columnOf = (name: string, s: AnySetting) => s.column ?? name;
const fieldOf = (name: string, s: AnySetting) => (s.secret || s.field === null ? null : (s.field ?? name));
const paramOf = (name: string, s: AnySetting, route: ParamRoute) => (s.param === null || (s.only && s.only !== route) ? null : (s.param ?? name));
const quote = (s: string) => JSON.stringify(s);

/** Declares the settings one table stores. */
export function declareSettings<const D extends SettingSpecs>(table: string, specs: D): DeclaredSettings<D> {
  const entries = Object.entries(specs);
  const decoders = entries.map(([, s]) => s.decode);
  // (row) => ({ "name": decode[i](row["column"]), … })
  const readRow = new Function('decode', `return (row) => ({ ${entries.map(([name, s], i) => `${quote(name)}: decode[${i}](row[${quote(columnOf(name, s))}])`).join(', ')} });`)(
    decoders,
  ) as (row: Readonly<Record<string, unknown>>) => Values<D>;
  const shown = entries.filter(([name, s]) => fieldOf(name, s) !== null);
  // (v, a) => ({ "field": v["name"], "guarded": a["flag"] ? v["name"] : undefined, … })
  const presentValues = new Function(
    `return (v, a) => ({ ${shown
      .map(([name, s]) => `${quote(fieldOf(name, s) as string)}: ${s.when ? `a[${quote(s.when)}] ? v[${quote(name)}] : undefined` : `v[${quote(name)}]`}`)
      .join(', ')} });`,
  )() as (values: Values<D>, audience: Audience) => EntityOf<D>;

  const defaultRow: Record<string, unknown> = {};
  for (const [name, s] of entries) defaultRow[columnOf(name, s)] = s.encode(s.default);
  const defaults = Object.freeze(readRow(defaultRow));

  const entity = {} as Record<string, TSchema>;
  for (const [name, s] of shown) entity[fieldOf(name, s) as string] = s.when ? Type.Optional(s.entity) : s.entity;

  return {
    table,
    specs,
    defaults,
    read: (row) => readRow(row ?? defaultRow),
    columns(values) {
      const out: Record<string, unknown> = {};
      for (const [name, s] of entries) {
        const value = (values as Record<string, unknown>)[name];
        if (value !== undefined) out[columnOf(name, s)] = s.encode(value);
      }
      return out;
    },
    defaultColumns: () => ({ ...defaultRow }),
    params<R extends ParamRoute>(route: R) {
      const out: Record<string, TSchema> = {};
      for (const [name, s] of entries) {
        const param = paramOf(name, s, route);
        if (param !== null) out[param] = Type.Optional(s.input);
      }
      return out as ParamProps<D, R>;
    },
    fromParams(input, route) {
      const out: Record<string, unknown> = {};
      for (const [name, s] of entries) {
        const param = paramOf(name, s, route);
        if (param !== null && input[param] !== undefined) out[name] = input[param];
      }
      return out as Partial<Values<D>>;
    },
    entity: entity as EntityProps<D>,
    present: (values, audience = {}) => presentValues(values, audience),
    columnNames: entries.map(([name, s]) => columnOf(name, s)),
    validate(values) {
      const errors: Record<string, string[]> = {};
      for (const [name, s] of entries) {
        const value = (values as Record<string, unknown>)[name];
        const { minimum, maximum } = s as IntegerOptions;
        if (typeof value !== 'number') continue;
        if (minimum !== undefined && value < minimum) (errors[name] ??= []).push(`must be greater than or equal to ${minimum}`);
        if (maximum !== undefined && value > maximum) (errors[name] ??= []).push(`must be less than or equal to ${maximum}`);
      }
      return errors;
    },
    missingRequired(input, route) {
      for (const [name, s] of entries) {
        const param = paramOf(name, s, route);
        if (param === null || input[param] !== true) continue;
        const missing = s.requires?.find((required) => input[required] === undefined);
        if (missing !== undefined) return missing;
      }
      return null;
    },
  };
}
