// What the security module offers beyond its routes and jobs: its part of the GraphQL schema (a
// pipeline's security report summary, with the errors of reports that could not be read).
export { securityGraphql } from './security.graphql.ts';
