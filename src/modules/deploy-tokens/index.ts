// The deploy tokens module's public surface: routes, and what git over HTTP asks of a token.
export { deployTokenRoutes } from './deploy-tokens.routes.ts';
export { deployTokenReaches, findDeployTokenByCredentials } from './deploy-tokens.finder.ts';
