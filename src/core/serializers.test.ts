// The response serializer: JSON.stringify's bytes, and a loud failure for an answer that holds a
// key its entity does not declare or fits none of the entities of a union (a key holding
// undefined counts as absent, as in JSON).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TSchema, Type } from '@sinclair/typebox';
import { Entity, Literals, Nullable, Timestamp } from './schema.ts';
import { lazySerializerCompiler } from './serializers.ts';

const serializerOf = (schema: TSchema) => lazySerializerCompiler({ schema, method: 'GET', url: '/things', httpStatus: '200' });

const Small = Entity({ id: Type.Integer(), name: Type.String() });
const Large = Entity({ id: Type.Integer(), name: Type.String(), state: Literals(['active', 'blocked']), note: Nullable(Type.String()), at: Nullable(Timestamp) });

test('answers are written as JSON.stringify writes them', () => {
  const serialize = serializerOf(Large);
  for (const value of [
    { id: 1, name: 'a "quoted" name', state: 'active', note: null, at: null },
    { id: 2, name: 'b\u2028\ud83d\ude00', state: 'blocked', note: 'line\nbreak', at: '2024-01-02T03:04:05.678Z' },
  ]) {
    assert.equal(serialize(value), JSON.stringify(value));
  }
  assert.equal(serializerOf(Type.Object({}, { additionalProperties: true }))({ any: 'thing' }), '{"any":"thing"}');
  assert.equal(serializerOf(Type.Array(Type.String()))(['a', 'b']), '["a","b"]');
});

test('an entity answer with a key its schema does not declare is refused, not leaked', () => {
  const serialize = serializerOf(Small);
  assert.throws(() => serialize({ id: 1, name: 'n', password_digest: 'x' }), /GET \/things: the answer fits none of the entities of its 200 response schema/);
  assert.equal(serialize({ id: 1, name: 'n', password_digest: undefined }), '{"id":1,"name":"n"}');
  assert.throws(() => serializerOf(Type.Array(Small))([{ id: 1, name: 'n' }, { id: 2, name: 'm', secret: 's' }]), /holds an item that fits none/);
});

test('a union of entities takes a value that fits any of them exactly', () => {
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
  assert.throws(() => serialize({ id: 3, name: 'x', extra: true }), /fits none of the entities/);
  assert.throws(() => serialize({ id: 3 }), /fits none/);
  assert.throws(() => serializerOf(Type.Array(Type.Union([Large, Small])))({ id: 1, name: 'n' }), /is not the array/);
});
