// Response serializers. A route's response schema is its contract: the suite checks every answer
// against it strictly, and the API document is made from it. Writing is left to JSON.stringify,
// which V8 runs natively and which leaves one flat string to the socket: on a page of twenty
// projects, the serializer fast-json-stringify compiles from the schema cost a tenth of the
// request (its concatenated output must be flattened again before it is written).
//
// What the schema still decides at run time is what may leave the server: an object answer that
// holds a defined key its schema does not declare is refused (a bug, answered 500) rather than
// written, so a presenter can never leak a column by accident; where the answer is one of several
// entities (a union of object schemas: the forms of a project or a user), a key none of them
// declares. A key holding undefined counts as absent, as in JSON: presenters leave a field out by
// setting it to undefined. Nested objects, and the keys an answer must have, are left to the
// suite's strict checks.
import type { FastifySchema, FastifySerializerCompiler } from 'fastify';

type Serialize = (data: unknown) => string;
type RouteSchema = Parameters<FastifySerializerCompiler<FastifySchema>>[0];
type JsonSchema = {
  type?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: unknown;
};
type Fits = (value: Record<string, unknown>) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An entity: an object schema that declares every key it allows (core/schema's Entity), checked key by key. */
const isEntity = (schema: JsonSchema | undefined): schema is JsonSchema & { properties: Record<string, JsonSchema> } =>
  schema?.type === 'object' && schema.properties !== undefined && schema.additionalProperties === false;

/**
 * The check of one value against an entity, or against any of a union's entities: no defined key
 * outside the keys they declare. Null when the schema is not made of entities. (Which keys must be
 * present is the suite's to check: here only what must never leave.)
 */
function entityCheck(schema: JsonSchema | undefined): Fits | null {
  const members = isEntity(schema) ? [schema] : schema?.anyOf;
  if (!members || !members.every(isEntity)) return null;
  // A prototype-less lookup object: faster than a Set on the hot path of every answer.
  const declared: Record<string, true> = Object.create(null);
  for (const member of members) for (const key of Object.keys(member.properties)) declared[key] = true;
  return (value) => {
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) if (declared[keys[i]] !== true && value[keys[i]] !== undefined) return false;
    return true;
  };
}

function compileRoute(route: RouteSchema): Serialize {
  const schema = route.schema as JsonSchema;
  const refuse = (what: string) => new TypeError(`${route.method} ${route.url}: ${what.replace('$', `its ${route.httpStatus} response schema`)}`);
  const check = entityCheck(schema);
  if (check) {
    return (data) => {
      if (!isObject(data) || !check(data)) throw refuse('the answer holds a key $ does not declare');
      return JSON.stringify(data);
    };
  }
  const itemCheck = schema.type === 'array' ? entityCheck(schema.items) : null;
  if (itemCheck) {
    return (data) => {
      if (!Array.isArray(data)) throw refuse('the answer is not the array $ declares');
      for (const item of data) if (!isObject(item) || !itemCheck(item)) throw refuse('an item of the answer holds a key $ does not declare');
      return JSON.stringify(data);
    };
  }
  return (data) => JSON.stringify(data);
}

export const lazySerializerCompiler: FastifySerializerCompiler<FastifySchema> = (route) => {
  let serialize: Serialize | undefined;
  return (data) => {
    serialize ??= compileRoute(route);
    return serialize(data);
  };
};
