// What the CI jobs module offers beyond its role files: job tokens as credentials.
export { resolveJobToken } from './job-tokens.ts';
