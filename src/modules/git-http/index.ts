// What the git-http module offers beyond its routes: who may fetch from or push to a repository,
// with the platform's messages, which the SSH server asks too.
export { GIT_ACCESS_MESSAGES, type GitAccessResult, checkGitAccess } from './git-http.access.ts';
