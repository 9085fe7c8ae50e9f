// The background work of group repository storage moves (project moves are the projects module's).
import { defineJobKind } from '../../jobs/queue.ts';
import { groupStorageMoveDeclaration, runGroupStorageMove } from './repository-storage-moves.service.ts';

export const groupStorageMoveJob = defineJobKind({
  ...groupStorageMoveDeclaration,
  run: (ctx, { moveId }) => runGroupStorageMove(ctx, moveId),
});
