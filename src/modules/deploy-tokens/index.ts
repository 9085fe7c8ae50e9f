// The deploy tokens module's public surface: what git over HTTP asks of a token.
export { deployTokenReaches, findDeployTokenByCredentials } from './deploy-tokens.finder.ts';
