// The response serializer: JSON.stringify's bytes, and a loud failure for an answer that holds a
// key its entity (or none of the entities of its union) declares; a key holding undefined counts
// as absent, as in JSON.
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
  assert.throws(() => serialize({ id: 1, name: 'n', password_digest: 'x' }), /GET \/things: the answer holds a key its 200 response schema does not declare/);
  assert.equal(serialize({ id: 1, name: 'n', password_digest: undefined }), '{"id":1,"name":"n"}');
  assert.throws(() => serializerOf(Type.Array(Small))([{ id: 1, name: 'n' }, { id: 2, name: 'm', secret: 's' }]), /GET \/things: an item of the answer holds a key its 200 response schema does not declare/);
});

test('a union of entities takes a value whose keys any of them declares', () => {
  const serialize = serializerOf(Type.Array(Type.Union([Large, Small])));
  const large = { id: 1, name: 'l', state: 'active', note: null, at: null };
  // A presenter leaves a field out by setting it to undefined: the value is still a Small.
  const small = { id: 2, name: 's', state: undefined };
  assert.equal(serialize([large, small]), JSON.stringify([large, small]));
  assert.equal(serialize([]), '[]');
  assert.equal(serializerOf(Type.Union([Large, Small]))(small), '{"id":2,"name":"s"}');
});

test('a key no entity of the union declares is an error, and so is an answer of the wrong kind', () => {
  const serialize = serializerOf(Type.Union([Large, Small]));
  assert.throws(() => serialize({ id: 3, name: 'x', extra: true }), /holds a key its 200 response schema does not declare/);
  assert.throws(() => serialize('text'), /holds a key/);
  assert.throws(() => serializerOf(Type.Array(Type.Union([Large, Small])))({ id: 1, name: 'n' }), /the answer is not the array its 200 response schema declares/);
});
