// The background work of snippets' repositories: storage moves, one at a time and in bulk (their
// removal is the domain's, src/domain/snippet-repositories.ts, as projects and users remove them too).
import { defineJobKind } from '../../jobs/queue.ts';
import {
  bulkSnippetStorageMovesDeclaration,
  failSnippetStorageMove,
  runSnippetStorageMove,
  scheduleSnippetMovesOn,
  snippetStorageMoveDeclaration,
} from './snippet-storage-moves.service.ts';

export const snippetStorageMoveJob = defineJobKind({
  ...snippetStorageMoveDeclaration,
  lockSeconds: 60 * 60,
  run: (ctx, { moveId }) => runSnippetStorageMove(ctx, moveId),
  // Given up for good: the snippet is left where it was, writable again.
  failed: (ctx, { moveId }) => failSnippetStorageMove(ctx, moveId, null),
});

export const bulkSnippetStorageMovesJob = defineJobKind({
  ...bulkSnippetStorageMovesDeclaration,
  async run(ctx, { source, destination }) {
    await scheduleSnippetMovesOn(ctx, source, destination);
  },
});
