// The background work of wikis: removing a removed group's wiki repository.
import { defineJobKind } from '../../jobs/queue.ts';
import { removeGroupWiki } from './wiki-repositories.ts';
import { removeGroupWikiDeclaration } from './wikis.service.ts';

export const removeGroupWikiJob = defineJobKind({
  ...removeGroupWikiDeclaration,
  run: (ctx, { groupId, storage }) => removeGroupWiki(ctx.config, groupId, storage),
});
