// Response serializers (fast-json-stringify, from a route's response schema) compiled on the
// route's first response instead of at start: compiling every route's serializer was a sixth of
// the start-up time, and most routes of a given instance are never called.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchema, FastifySerializerCompiler } from 'fastify';

const compile = SerializerSelector()({}, {});

export const lazySerializerCompiler: FastifySerializerCompiler<FastifySchema> = (route) => {
  let serialize: ((data: unknown) => string) | undefined;
  return (data) => {
    serialize ??= compile(route as Parameters<typeof compile>[0]);
    return serialize(data);
  };
};
