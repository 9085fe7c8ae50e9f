// Response serializers (fast-json-stringify, from a route's response schema) compiled on the
// route's first response instead of at start: compiling every route's serializer was a sixth of
// the start-up time, and most routes of a given instance are never called.
//
// Two unions are rewritten for the serializer, which would otherwise validate each value against
// each member (a tenth of a list's time): a value or null becomes the value's schema marked
// `nullable`, one of several string literals a string.
//
// An answer that is one of several entities (a union of object schemas, or an array of such
// unions: the forms of a project or a user) is written by the entity whose keys the value has.
// fast-json-stringify would pick the entity by validating the value against each, and validation
// counts a key holding undefined as present, where JSON (and the presenters, which leave out a
// field by setting it to undefined) count it as absent.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchema, FastifySerializerCompiler } from 'fastify';

type Serialize = (data: unknown) => string;
type RouteSchema = Parameters<FastifySerializerCompiler<FastifySchema>>[0];
type JsonSchema = {
  type?: unknown;
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
};

const compile = SerializerSelector()({}, {});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const mapValues = (record: Record<string, JsonSchema>, f: (s: JsonSchema) => JsonSchema) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));

/** The same schema, with `X | null` as a nullable X and a union of string literals as a string, at every depth. */
function forSerializer(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  if (out.properties) out.properties = mapValues(out.properties, forSerializer);
  if (out.patternProperties) out.patternProperties = mapValues(out.patternProperties, forSerializer);
  if (out.items) out.items = forSerializer(out.items);
  const members = out.anyOf?.map(forSerializer);
  if (!members) return out;
  if (members.every((m) => m.type === 'string' && typeof m.const === 'string')) return { type: 'string' };
  const value = members.length === 2 && members.some((m) => m.type === 'null') ? members.find((m) => m.type !== 'null') : undefined;
  if (value && typeof value.type === 'string' && !value.anyOf) return { ...value, nullable: true } as JsonSchema;
  return { ...out, anyOf: members };
}

/** The members of a union made only of object schemas; null for anything else. */
function entityUnion(schema: JsonSchema | undefined): JsonSchema[] | null {
  const members = schema?.anyOf;
  return members && members.length > 1 && members.every((m) => m.type === 'object' && m.properties) ? members : null;
}

/** Whether a value has exactly the keys of an entity: every required one defined, no defined one undeclared. */
function fitsEntity(schema: JsonSchema): (value: Record<string, unknown>) => boolean {
  const required = schema.required ?? [];
  const declared = new Set(Object.keys(schema.properties ?? {}));
  return (value) => {
    for (const key of required) if (value[key] === undefined) return false;
    for (const key in value) if (value[key] !== undefined && !declared.has(key)) return false;
    return true;
  };
}

/** Writes one value of a union by the first entity it fits; a value that fits none is a bug. */
function unionSerializer(route: RouteSchema, members: JsonSchema[]): Serialize {
  const entities = members.map((schema) => ({ fits: fitsEntity(schema), serialize: compile({ ...route, schema } as Parameters<typeof compile>[0]) as Serialize }));
  return (data) => {
    if (isObject(data)) for (const entity of entities) if (entity.fits(data)) return entity.serialize(data);
    throw new TypeError(`${route.method} ${route.url}: the answer fits none of the entities of its ${route.httpStatus} response schema`);
  };
}

function compileRoute(route: RouteSchema): Serialize {
  const schema = forSerializer(route.schema as JsonSchema);
  const members = entityUnion(schema);
  if (members) return unionSerializer(route, members);
  const itemMembers = schema.type === 'array' ? entityUnion(schema.items) : null;
  if (itemMembers) {
    const item = unionSerializer(route, itemMembers);
    return (data) => {
      if (!Array.isArray(data)) throw new TypeError(`${route.method} ${route.url}: the answer is not an array`);
      // Concatenated, not joined: join flattens each item's string first, which costs more than writing it.
      let json = '[';
      for (let i = 0; i < data.length; i++) json += i === 0 ? item(data[i]) : `,${item(data[i])}`;
      return `${json}]`;
    };
  }
  return compile({ ...route, schema } as Parameters<typeof compile>[0]) as Serialize;
}

export const lazySerializerCompiler: FastifySerializerCompiler<FastifySchema> = (route) => {
  let serialize: Serialize | undefined;
  return (data) => {
    serialize ??= compileRoute(route);
    return serialize(data);
  };
};
