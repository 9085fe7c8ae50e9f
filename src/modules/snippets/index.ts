// The snippets module's public surface beyond its role files: what git over HTTP asks of a
// snippet's repository path.
export { SNIPPET_GIT_MESSAGES, checkSnippetGitAccess, snippetRepositoryRef } from './snippet-git-access.ts';
