// Response serializers. A route's response schema is its contract: the suite checks every answer
// against it strictly, and the API document is made from it. Writing is left to JSON.stringify,
// which V8 runs natively and which leaves one flat string to the socket: on a page of twenty
// projects, the serializer fast-json-stringify compiles from the schema cost a tenth of the
// request (its concatenated output must be flattened again before it is written).
//
// What the schema still decides at run time is what may leave the server: an object answer that
// holds a defined key its schema does not declare is refused (a bug, answered 500) rather than
// written, so a presenter can never leak a column by accident. Where the answer is one of several
// entities (a union of object schemas: the forms of a project or a user), it must fit one of them
// exactly. A key holding undefined counts as absent, as in JSON: presenters leave a field out by
// setting it to undefined. Nested objects are left to the suite's strict checks.
import type { FastifySchema, FastifySerializerCompiler } from 'fastify';

type Serialize = (data: unknown) => string;
type RouteSchema = Parameters<FastifySerializerCompiler<FastifySchema>>[0];
type JsonSchema = {
  type?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: unknown;
  required?: string[];
};
type Fits = (value: Record<string, unknown>) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An entity: an object schema that declares every key it allows (core/schema's Entity), checked key by key. */
const isEntity = (schema: JsonSchema | undefined): schema is JsonSchema & { properties: Record<string, JsonSchema> } =>
  schema?.type === 'object' && schema.properties !== undefined && schema.additionalProperties === false;

/** Whether a value has exactly the keys of an entity: every required one defined, no defined one undeclared. */
function fitsEntity(schema: JsonSchema & { properties: Record<string, JsonSchema> }): Fits {
  const required = schema.required ?? [];
  const declared = new Set(Object.keys(schema.properties));
  return (value) => {
    for (const key of required) if (value[key] === undefined) return false;
    for (const key in value) if (value[key] !== undefined && !declared.has(key)) return false;
    return true;
  };
}

/** The check of one value: the entity's, or any of a union's entities'; null when the schema is not entities. */
function entityCheck(schema: JsonSchema | undefined): Fits | null {
  if (isEntity(schema)) return fitsEntity(schema);
  const members = schema?.anyOf;
  if (!members || !members.every(isEntity)) return null;
  const checks = members.map(fitsEntity);
  return (value) => checks.some((fits) => fits(value));
}

function compileRoute(route: RouteSchema): Serialize {
  const schema = route.schema as JsonSchema;
  const refuse = (what: string) => new TypeError(`${route.method} ${route.url}: the answer ${what} of its ${route.httpStatus} response schema`);
  const check = entityCheck(schema);
  if (check) {
    return (data) => {
      if (!isObject(data) || !check(data)) throw refuse('fits none of the entities');
      return JSON.stringify(data);
    };
  }
  const itemCheck = schema.type === 'array' ? entityCheck(schema.items) : null;
  if (itemCheck) {
    return (data) => {
      if (!Array.isArray(data)) throw refuse('is not the array');
      for (const item of data) if (!isObject(item) || !itemCheck(item)) throw refuse('holds an item that fits none of the entities');
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
