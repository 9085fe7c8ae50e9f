// The declaration of the merge status check, a job the merge requests module runs: writers that
// move branches (the post-push work) enqueue it through this declaration, without depending on
// the module that handles it.
import { Type } from '@sinclair/typebox';
import type { JobDeclaration } from './queue.ts';

export const MergeStatusPayload = Type.Object(
  {
    projectId: Type.Integer(),
    /** The open merge requests from or into these branches… */
    branches: Type.Optional(Type.Array(Type.String())),
    /** …or these merge requests. */
    mergeRequestIds: Type.Optional(Type.Array(Type.Integer())),
  },
  { additionalProperties: false },
);

export const MERGE_STATUS_CHECK: JobDeclaration<typeof MergeStatusPayload> = { name: 'merge_requests.check_merge_status', payload: MergeStatusPayload, maxAttempts: 5 };
