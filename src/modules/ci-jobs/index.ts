// What the CI jobs module offers beyond its role files: job tokens as credentials, and the
// archiving of finished jobs' logs.
export { resolveJobToken } from './job-tokens.ts';
export { archiveFinishedTraces } from './trace-archive.ts';
