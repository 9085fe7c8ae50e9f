// Declarations of background work the merge requests module runs, so that the writers that call
// for it (the post-push work, pipeline processing) enqueue it without depending on that module:
// the refresh of a merge request after its source branch moved (its ref, its pipeline, its
// automatic merge), the automatic merges a successful pipeline lets go ahead, and the to-dos of a
// merge request's pipeline that failed or was retried, and the reset of approvals of merge requests
// whose source branch moved (which the approvals module runs).
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
const PipelineTodosPayload = Type.Object({ pipelineId: Type.Integer(), event: Type.Union([Type.Literal('failed'), Type.Literal('retried')]) }, { additionalProperties: false });

const ApprovalsResetPayload = Type.Object({ projectId: Type.Integer(), mergeRequestIds: Type.Array(Type.Integer(), { minItems: 1 }) }, { additionalProperties: false });

export const APPROVALS_RESET: JobDeclaration<typeof ApprovalsResetPayload> = { name: 'merge_requests.reset_approvals', payload: ApprovalsResetPayload, maxAttempts: 5 };
export const MERGE_REQUEST_REFRESH: JobDeclaration<typeof RefreshPayload> = { name: 'merge_requests.refresh', payload: RefreshPayload, maxAttempts: 5 };
export const AUTO_MERGE: JobDeclaration<typeof AutoMergePayload> = { name: 'merge_requests.auto_merge', payload: AutoMergePayload, maxAttempts: 3 };
export const PIPELINE_TODOS: JobDeclaration<typeof PipelineTodosPayload> = { name: 'merge_requests.pipeline_todos', payload: PipelineTodosPayload, maxAttempts: 5 };
