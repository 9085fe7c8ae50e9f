// The response serializer: the bytes JSON.stringify would write, the entity of a union chosen by
// the keys a value has (a key holding undefined counts as absent, as in JSON), and a loud failure
// for a value that fits no entity.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TSchema, Type } from '@sinclair/typebox';
import { Entity, Literals, Nullable, Timestamp } from './schema.ts';
import { lazySerializerCompiler } from './serializers.ts';

const serializerOf = (schema: TSchema) => lazySerializerCompiler({ schema, method: 'GET', url: '/things', httpStatus: '200' });

const Small = Entity({ id: Type.Integer(), name: Type.String() });
const Large = Entity({ id: Type.Integer(), name: Type.String(), state: Literals(['active', 'blocked']), note: Nullable(Type.String()), at: Nullable(Timestamp) });

test('nullable values and literals are written as JSON.stringify writes them', () => {
  const serialize = serializerOf(Large);
  for (const value of [
    { id: 1, name: 'a "quoted" name', state: 'active', note: null, at: null },
    { id: 2, name: 'b', state: 'blocked', note: 'line\nbreak', at: '2024-01-02T03:04:05.678Z' },
  ]) {
    assert.equal(serialize(value), JSON.stringify(value));
  }
});

test('a union of entities writes each value by the entity whose keys it has', () => {
  const serialize = serializerOf(Type.Array(Type.Union([Large, Small])));
  const large = { id: 1, name: 'l', state: 'active', note: null, at: null };
  // A presenter leaves a field out by setting it to undefined: the value is still a Small.
  const small = { id: 2, name: 's', state: undefined };
  assert.equal(serialize([large, small]), JSON.stringify([large, small]));
  assert.equal(serialize([]), '[]');
  assert.equal(serializerOf(Type.Union([Large, Small]))(small), '{"id":2,"name":"s"}');
});

test('a value that fits no entity of the union is an error, not a guess', () => {
  const serialize = serializerOf(Type.Union([Large, Small]));
  assert.throws(() => serialize({ id: 3, name: 'x', extra: true }), /GET \/things: the answer fits none of the entities of its 200 response schema/);
  assert.throws(() => serialize({ id: 3 }), /fits none/);
  assert.throws(() => serializerOf(Type.Array(Type.Union([Large, Small])))({ id: 1, name: 'n' }), /is not an array/);
});
