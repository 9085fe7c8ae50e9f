// Merge request pipelines (14.x MergeRequests::CreatePipelineService): a `merge_request_event`
// pipeline runs the source branch's head through refs/merge-requests/<iid>/head, with the merge
// request's variables, when the configuration asks for one (rules or `only: merge_requests`). The
// refresh job (merge-requests.jobs.ts), enqueued when a merge request is opened or reopened and
// after each push to its source branch, moves that ref and makes the pipeline; the API makes one
// on request.
import type { ServiceContext } from '../../core/context.ts';
import { actingUser } from '../../core/auth/actor.ts';
import type { MergeRequestRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { mergeRequestRef } from '../../ci/variables.ts';
import { changedFiles, mergeBase } from '../../git/merges.ts';
import { isAncestor, resolveRef, updateRef } from '../../git/refs.ts';
import { pipelineRefusal } from '../pipelines/index.ts';
import { mergeRequestHeadPipeline } from '../pipelines/pipelines.finder.ts';
import { type CreatePipelineResult, createPipeline } from '../pipelines/pipelines.service.ts';
import { branchHead } from './merge-state.ts';

export type MergeRequestPipelineResult = CreatePipelineResult | { notAllowed: true } | { duplicate: true };

/**
 * Points refs/merge-requests/<iid>/head at the source head (fetchable by clients and runners); the
 * head, or null without a source branch. The ref moves under a push lease: refused (the API's 400,
 * a job's retry) while a storage move holds the repository.
 */
export async function refreshMergeRequestRef(
  ctx: ServiceContext,
  project: Pick<ProjectRow, 'id' | 'repository_storage'>,
  gitDir: string,
  mr: Pick<MergeRequestRow, 'iid' | 'source_branch'>,
): Promise<string | null> {
  const head = await branchHead(gitDir, mr.source_branch);
  if (head !== null && (await resolveRef(gitDir, mergeRequestRef(mr.iid))) !== head) {
    await withRepositoryWrite(ctx, { kind: 'project', id: project.id, storage: project.repository_storage }, () => updateRef(gitDir, mergeRequestRef(mr.iid), head));
  }
  return head;
}

/**
 * Makes a merge request pipeline as `user`. `{ notAllowed }`: the merge request has no commits (or
 * no source branch); `{ duplicate }`: its head pipeline is one already and `allowDuplicate` is off.
 */
export async function createMergeRequestPipeline(
  ctx: ServiceContext,
  project: ProjectRow,
  mr: MergeRequestRow,
  user: UserRow,
  options: { allowDuplicate: boolean; onSaved?: Parameters<typeof createPipeline>[1]['onSaved'] },
): Promise<MergeRequestPipelineResult> {
  const gitDir = repositoryDir(ctx.config, project);
  const source = gitDir === null ? null : await refreshMergeRequestRef(ctx, project, gitDir, mr);
  const target = gitDir === null ? null : await branchHead(gitDir, mr.target_branch);
  if (gitDir === null || source === null || (target !== null && (await isAncestor(gitDir, source, target)))) return { notAllowed: true };
  if (!options.allowDuplicate && (await mergeRequestHeadPipeline(ctx.db, mr, source))?.merge_request_id === mr.id) return { duplicate: true };
  const refusal = await pipelineRefusal(ctx.db, user, project, mr.source_branch);
  if (refusal !== null) return { error: refusal === 'invisible' ? 'Insufficient permissions to create a new pipeline' : refusal };
  // rules:changes compares the merge request's diff.
  const base = target === null ? null : await mergeBase(gitDir, target, source);
  const changedPaths = base === null ? null : (await changedFiles(gitDir, base, source)).flatMap((f) => (f.oldPath === f.newPath ? [f.newPath] : [f.oldPath, f.newPath]));
  return createPipeline(
    { ...ctx, actor: actingUser(user) },
    { project, ref: mergeRequestRef(mr.iid), mergeRequestId: mr.id, sha: source, source: 'merge_request_event', user, saveFailed: true, changedPaths, onSaved: options.onSaved },
  );
}
