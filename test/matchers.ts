// Strict response checks: every success body must match its entity schema exactly (no missing
// keys, no extra keys), and every error body must be the platform's.
import assert from 'node:assert/strict';
import { FormatRegistry, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { LightMyRequestResponse } from 'fastify';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => ISO_MS.test(v));
if (!FormatRegistry.Has('date')) FormatRegistry.Set('date', (v) => /^\d{4}-\d{2}-\d{2}$/.test(v));

/** Asserts that `value` matches `schema` exactly; the message lists every mismatch. */
export function expectEntity(value: unknown, schema: TSchema): void {
  if (Value.Check(schema, value)) return;
  const errors = [...Value.Errors(schema, value)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
  assert.fail(`response does not match the entity schema:\n  ${errors.join('\n  ')}\nbody: ${JSON.stringify(value).slice(0, 2000)}`);
}

export function expectEntities(value: unknown, schema: TSchema): void {
  expectEntity(value, Type.Array(schema));
}

/** Asserts status and an exact JSON body. */
export function expectError(res: LightMyRequestResponse, status: number, body: unknown): void {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body}`);
  assert.deepEqual(res.json(), body);
}

export function expectStatus(res: LightMyRequestResponse, status: number): void {
  assert.equal(res.statusCode, status, `expected ${status}, got ${res.statusCode}: ${res.body.slice(0, 500)}`);
}
