// Small TypeBox helpers for entity schemas: strict objects, nullable fields and enum fields, and the
// bodies of answers that carry no entity.
import { type TLiteral, type TProperties, type TSchema, type TUnion, Type } from '@sinclair/typebox';

/** An entity: exactly these keys, no others. */
export const Entity = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** One of these strings, as an entity field (a union of literals, which the strict matcher checks). */
export const Literals = <const T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v))) as TUnion<TLiteral<T[number]>[]>;

/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = Type.String({ format: 'date-time' });
/** YYYY-MM-DD. */
export const DateOnly = Type.String({ format: 'date' });

/** An answer without a body (204, 304, a HEAD's refusal); its schema says so. */
export const NoContent = Type.Unsafe<undefined>({ type: 'null', description: 'no body' });

/** {"message": "202 Accepted"}: a deletion that finishes in the background. */
export const AcceptedEntity = Entity({ message: Type.Literal('202 Accepted') });
