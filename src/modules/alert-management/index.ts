// What the alert management module offers beyond its routes: its part of the GraphQL schema
// (HTTP integrations and alerts of a project, and the integrations' mutations).
export { alertManagementGraphql } from './alert-management.graphql.ts';
