// What the error tracking module offers beyond its routes, services and finders: its part of the
// GraphQL schema.
export { errorTrackingGraphql } from './error-tracking.graphql.ts';
