// The wikis module's public surface: what webhooks read of a project wiki's page, what git over
// HTTP and SSH ask of a wiki's repository, and what group storage moves and group removal do to a
// group's wiki.
export { WIKI_BRANCH as WIKI_DEFAULT_BRANCH } from './wiki-pages.ts';
export { projectWikiPageAt } from './wikis.finder.ts';
export { WIKI_GIT_MESSAGES, type WikiGitAccess, checkWikiGitAccess } from './wikis.access.ts';
export type { WikiContainer } from './wiki-repositories.ts';
export { wikiRepository } from './wiki-repositories.ts';
export { groupWikiStorage, groupsWithWikiOn, moveGroupWiki, setGroupWikiReadOnly } from './wiki-repositories.ts';
export { scheduleGroupWikiRemovals } from './wikis.service.ts';
