// Declarations of background work the merge requests module runs, so that the writers that call
// for it (the post-push work, pipeline processing) enqueue it without depending on that module:
// the refresh of a merge request after its source branch moved (its ref, its pipeline, its
// automatic merge), and the automatic merges a successful pipeline lets go ahead.
import { Type } from '@sinclair/typebox';
import type { JobDeclaration } from './queue.ts';

const RefreshPayload = Type.Object(
  {
    mergeRequestId: Type.Integer(),
    /** Who moved the branch (or opened the merge request): the pipeline's user. */
    userId: Type.Integer(),
    /** The push asked for no pipeline (`-o ci.skip`). */
    skipPipeline: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const AutoMergePayload = Type.Object({ projectId: Type.Integer() }, { additionalProperties: false });

export const MERGE_REQUEST_REFRESH: JobDeclaration<typeof RefreshPayload> = { name: 'merge_requests.refresh', payload: RefreshPayload, maxAttempts: 5 };
export const AUTO_MERGE: JobDeclaration<typeof AutoMergePayload> = { name: 'merge_requests.auto_merge', payload: AutoMergePayload, maxAttempts: 3 };
