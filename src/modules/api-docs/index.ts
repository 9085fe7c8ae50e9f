// What the application's wiring needs of this module besides its routes: the options of
// @fastify/swagger, which collects every route registered after it.
export { openapiOptions } from './api-docs.document.ts';
