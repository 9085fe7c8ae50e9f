// Small TypeBox helpers for entity schemas: strict objects and nullable fields.
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';

/** An entity: exactly these keys, no others. */
export const Entity = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = Type.String({ format: 'date-time' });
/** YYYY-MM-DD. */
export const DateOnly = Type.String({ format: 'date' });
