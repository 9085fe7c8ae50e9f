// The background work of merge requests: the merge status check (14.x MergeRequests::
// MergeabilityCheckService: for open merge requests of a project, the branches' heads and whether
// the source merges cleanly, read from git first, then written in one transaction that completes
// the job), the refresh after a push, the automatic merges, the to-dos of a failed or retried
// pipeline, and rebases (rebase.ts).
import { projectAs } from '../../core/access/loaders.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { type ServiceContext, withTransaction } from '../../core/context.ts';
import { DomainError } from '../../core/errors.ts';
import type { CiPipelineRow, MergeRequestRow } from '../../db/schema.ts';
import { isRepositoryReadOnly, repositoryDir } from '../../domain/project-repository.ts';
import { readProjectSettings } from '../../domain/settings/project-settings.ts';
import { existingProjectRepository } from '../../git/repository.ts';
import { AUTO_MERGE, MERGE_REQUEST_REFRESH, PIPELINE_TODOS } from '../../jobs/merge-request-work.ts';
import { MERGE_STATUS_CHECK } from '../../jobs/merge-status-check.ts';
import { defineJobKind } from '../../jobs/queue.ts';
import { findOpenMergeRequest, openMergeRequestsOnBranches } from './merge-requests.finder.ts';
import { mergeRequestHeadPipeline } from '../pipelines/pipelines.finder.ts';
import { pushMayMakePipeline } from '../pipelines/pipelines.service.ts';
import { participantTodos, resolveTodos } from '../todos/todos.service.ts';
import { abortAutoMerge, endAutoMerge, mergeParticipants, storedMergeParams } from './auto-merge.ts';
import { cacheClosingIssues, closingText } from './closing-issues.ts';
import { todoTargetOf } from './merge-requests.service.ts';
import { mergeMergeRequest } from './merge.ts';
import { createMergeRequestPipeline, refreshMergeRequestRef } from './merge-request-pipelines.ts';
import { type GitState, branchHead, diffRefs, readGitState } from './merge-state.ts';

export { rebaseJob } from './rebase.ts';

export const checkMergeStatusJob = defineJobKind({
  ...MERGE_STATUS_CHECK,
  async run(ctx, { projectId, branches, mergeRequestIds }, job) {
    const project = await ctx.db.selectFrom('projects').select(['id', 'repository_storage']).where('id', '=', projectId).executeTakeFirst();
    const gitDir = project ? existingProjectRepository(ctx.config.repositoryStorages, project) : null;
    let mrs: MergeRequestRow[] = [];
    if (gitDir !== null) {
      mrs = await openMergeRequestsOnBranches(ctx.db, projectId, branches ?? []);
      if (mergeRequestIds && mergeRequestIds.length > 0) {
        const more = await ctx.db.selectFrom('merge_requests').selectAll().where('id', 'in', mergeRequestIds).where('state', '=', 'opened').execute();
        mrs.push(...more.filter((m) => !mrs.some((known) => known.id === m.id)));
      }
    }
    const states: [MergeRequestRow, GitState][] = [];
    for (const mr of mrs) states.push([mr, await readGitState(gitDir as string, mr)]);
    await withTransaction(ctx, async (tx) => {
      for (const [mr, state] of states) {
        // Only while it is still open, and still on the branches the state was read for.
        await tx.db
          .updateTable('merge_requests')
          .set(state)
          .where('id', '=', mr.id)
          .where('state', '=', 'opened')
          .where('source_branch', '=', mr.source_branch)
          .where('target_branch', '=', mr.target_branch)
          .execute();
      }
      await job.complete(tx.db);
    });
  },
});

/**
 * After a merge request is opened or reopened, or its source branch moved (MergeRequests::
 * RefreshService): its ref follows the source head, the issues its commits close are read again,
 * an automatic merge asked for an older head ends, and a merge request pipeline is made when the
 * configuration has one. The job is done in
 * the transaction that saves the pipeline, so that a run cut short makes no second one.
 */
export const refreshMergeRequestJob = defineJobKind({
  ...MERGE_REQUEST_REFRESH,
  async run(ctx, { mergeRequestId, userId, skipPipeline }, job) {
    const complete = () => withTransaction(ctx, (tx) => job.complete(tx.db));
    const mr = await ctx.db.selectFrom('merge_requests').selectAll().where('id', '=', mergeRequestId).where('state', '=', 'opened').executeTakeFirst();
    const project = mr ? await ctx.db.selectFrom('projects').selectAll().where('id', '=', mr.project_id).executeTakeFirst() : undefined;
    const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    const gitDir = project ? repositoryDir(ctx.config, project) : null;
    if (!mr || !project || !user || gitDir === null) return complete();
    const head = await refreshMergeRequestRef(ctx, project, gitDir, mr);
    const target = await branchHead(gitDir, mr.target_branch);
    const closing = await closingText(gitDir, { ...mr, ...(head !== null && target !== null ? await diffRefs(gitDir, head, target) : {}) });
    const asked = storedMergeParams(mr);
    await withTransaction({ ...ctx, actor: actingUser(user) }, async (tx) => {
      await cacheClosingIssues(tx, mr, closing);
      if (mr.merge_when_pipeline_succeeds && asked && head !== asked.sha) await endAutoMerge(tx, mr, 'aborted the automatic merge because source branch was updated');
    });
    if (head === null || skipPipeline || !(await pushMayMakePipeline(ctx, project, head))) return complete();
    const result = await createMergeRequestPipeline(ctx, project, mr, user, { allowDuplicate: false, onSaved: (db) => job.complete(db) });
    if (!('pipeline' in result)) await complete();
  },
});

/**
 * The automatic merges of a project, once a pipeline of it succeeded (AutoMerge::
 * MergeWhenPipelineSucceedsService#process): each merge request set to merge whose head pipeline
 * has succeeded is merged as the user who asked, with the checks of any merge; a merge refused
 * now ends the automatic merge with the reason.
 */
export const autoMergeJob = defineJobKind({
  ...AUTO_MERGE,
  async run(ctx, { projectId }, job) {
    const waiting = await ctx.db.selectFrom('merge_requests').selectAll().where('project_id', '=', projectId).where('state', '=', 'opened').where('merge_when_pipeline_succeeds', '=', true).orderBy('id').execute();
    for (const mr of waiting) await autoMerge(ctx, mr);
    await withTransaction(ctx, (tx) => job.complete(tx.db));
  },
});

/** The platform's merge_error words for a merge refused when its time came. */
function mergeErrorOf(error: DomainError): string {
  if (error.status === 409) return 'Branch has been updated since the merge was requested. Please review the changes.';
  if (error.status === 401) return 'You are not allowed to merge this merge request';
  return 'Merge request is not mergeable';
}

async function autoMerge(ctx: ServiceContext, mr: MergeRequestRow): Promise<void> {
  const asked = storedMergeParams(mr);
  const project = await ctx.db.selectFrom('projects').selectAll().where('id', '=', mr.project_id).executeTakeFirstOrThrow();
  const user = mr.merge_user_id === null ? undefined : await ctx.db.selectFrom('users').selectAll().where('id', '=', mr.merge_user_id).executeTakeFirst();
  const gitDir = repositoryDir(ctx.config, project);
  if (!asked || !user || gitDir === null) return;
  const head = await branchHead(gitDir, mr.source_branch);
  const pipeline = head === null ? null : await mergeRequestHeadPipeline(ctx.db, mr, head);
  if (pipeline?.status !== 'success') return;
  const actor = actingUser(user);
  const as = { ...ctx, actor };
  try {
    await mergeMergeRequest(as, await projectAs(ctx.db, actor, project), mr, asked, await readProjectSettings(ctx.db, project));
  } catch (error) {
    // A storage move holds the repository: the merge waits for the queue's retry, still asked for.
    if (!(error instanceof DomainError) || isRepositoryReadOnly(error)) throw error;
    await abortAutoMerge(as, mr, mergeErrorOf(error));
  }
}

/** The open merge requests whose head pipeline this is: the one it was made for, or those from its branch. */
async function mergeRequestsHeadedBy(ctx: ServiceContext, pipeline: CiPipelineRow): Promise<MergeRequestRow[]> {
  let candidates: MergeRequestRow[] = [];
  if (pipeline.merge_request_id !== null) candidates = [await findOpenMergeRequest(ctx.db, pipeline.merge_request_id)].filter((mr) => mr !== undefined);
  else if (!pipeline.tag) candidates = (await openMergeRequestsOnBranches(ctx.db, pipeline.project_id, [pipeline.ref])).filter((mr) => mr.source_branch === pipeline.ref);
  const headed: MergeRequestRow[] = [];
  for (const mr of candidates) if (mr.sha !== null && (await mergeRequestHeadPipeline(ctx.db, mr, mr.sha))?.id === pipeline.id) headed.push(mr);
  return headed;
}

/**
 * A merge request's head pipeline failed (MergeRequests::AddTodoWhenBuildFailsService): its
 * participants get a `build_failed` to-do; retried, their `build_failed` to-dos are done. A
 * failure retried before this ran makes none.
 */
export const pipelineTodosJob = defineJobKind({
  ...PIPELINE_TODOS,
  async run(ctx, { pipelineId, event }, job) {
    const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst();
    await withTransaction(ctx, async (tx) => {
      if (pipeline && (event === 'retried' || pipeline.status === 'failed')) {
        for (const mr of await mergeRequestsHeadedBy(tx, pipeline)) {
          const target = todoTargetOf(mr);
          if (event === 'failed') await participantTodos(tx, target, mergeParticipants(mr), 'build_failed');
          else for (const user of mergeParticipants(mr)) await resolveTodos(tx, target, user, ['build_failed']);
        }
      }
      await job.complete(tx.db);
    });
  },
});
