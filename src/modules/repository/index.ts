// What the repository module offers other modules beyond its role files: the pre-handler every
// repository route (files, commits, branches, tags) loads its project with.
export { loadRepository } from './repository.access.ts';
