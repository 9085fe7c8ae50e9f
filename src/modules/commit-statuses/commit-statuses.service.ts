// Posting a commit status (14.x `POST /projects/:id/statuses/:sha`): the status joins the newest
// pipeline of the commit (of the ref, of the pipeline id when given) or a new `external` one; a
// pending or running status of that name, ref and author moves on, otherwise a new one starts, and
// older statuses of its name are retried. The pipeline is processed in the same transaction, so
// that its status follows at once.
import { type Kysely, PostgresAdapter } from 'kysely';
import { type ServiceContext, atTime, requireActor, withTransaction } from '../../core/context.ts';
import type { LoadedProject } from '../../core/access/loaders.ts';
import { apiError, forbidden, invalidFields, notFound } from '../../core/errors.ts';
import type { CiPipelineRow, DB } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { type Pusher, type RefProtections, canCreateTag, canMergeToBranch, canPushToBranch, isProtectedBranch, isProtectedTag, pusherOf } from '../../domain/ref-protection.ts';
import { TAKEN, addError } from '../../domain/validation.ts';
import { validRefName } from '../../git/args.ts';
import { branchesContaining } from '../../git/reachability.ts';
import { resolveRef } from '../../git/refs.ts';
import { type CommitStatusState, commitStatusChange } from '../../ci/commit-status.ts';
import { type Status, isCompleted } from '../../ci/status.ts';
import { processInTransaction, processLater } from '../pipelines/index.ts';
import { ZERO_SHA, insertPipeline, lockProjectPipelines } from '../pipelines/pipelines.service.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { type CommitStatusRow, matchingPipeline } from './commit-statuses.finder.ts';
import { commitStatusErrors } from './commit-statuses.validation.ts';

/** Commit statuses share ci_builds with jobs and bridges under this type. */
const GENERIC_TYPE = 'generic';
/** Their stage, last of every pipeline (GenericCommitStatus::EXTERNAL_STAGE_IDX). */
const EXTERNAL_STAGE = 'external';
const EXTERNAL_STAGE_IDX = 1_000_000;

export interface PostStatusInput {
  project: Pick<LoadedProject, 'row' | 'access' | 'can'>;
  /** The commit's full id. */
  sha: string;
  state: CommitStatusState;
  ref?: string;
  name: string;
  targetUrl?: string;
  description?: string;
  coverage?: number;
  pipelineId?: number;
}

/** Rails' `present?` for the optional texts: a blank one is left out, as if not given. */
const present = (value: string | undefined) => (value !== undefined && value.trim() !== '' ? value : undefined);

const postgres = (db: Kysely<DB>) => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * `Project#protected_for?`: the ref as a branch or tag that exists (a tag first, as the platform
 * expands a name), or given in full, under a protection rule.
 */
async function protectedRef(dir: string | null, protections: RefProtections, ref: string): Promise<boolean> {
  if (ref.startsWith('refs/heads/')) return isProtectedBranch(protections, ref.slice('refs/heads/'.length));
  if (ref.startsWith('refs/tags/')) return isProtectedTag(protections, ref.slice('refs/tags/'.length));
  if (dir === null || !validRefName(`refs/heads/${ref}`)) return false;
  if ((await resolveRef(dir, `refs/tags/${ref}`)) !== null) return isProtectedTag(protections, ref);
  if ((await resolveRef(dir, `refs/heads/${ref}`)) !== null) return isProtectedBranch(protections, ref);
  return false;
}

/** The first branch, by name, whose history holds the commit (the platform's branch_names_contains). */
async function firstBranchHolding(dir: string | null, sha: string): Promise<string | null> {
  if (dir === null) return null;
  const [first] = (await branchesContaining(dir, sha)).keys();
  return first === undefined ? null : first.slice('refs/heads/'.length);
}

/** Whether the pusher may update a pipeline of the ref (Ci::PipelinePolicy's protected_ref rule). */
function mayUpdatePipelineOf(protections: RefProtections, ref: string, tag: boolean, pusher: Pusher): boolean {
  if (tag) return canCreateTag(protections, ref, pusher);
  return canPushToBranch(protections, ref, pusher) || canMergeToBranch(protections, ref, pusher);
}

export async function postCommitStatus(ctx: ServiceContext, input: PostStatusInput): Promise<CommitStatusRow> {
  const actor = requireActor(ctx);
  const { row: project } = input.project;
  const dir = repositoryDir(ctx.config, project);
  const found = await matchingPipeline(ctx.db, project.id, input.sha, { ref: input.ref, pipelineId: input.pipelineId });
  // Without a ref, the pipeline's, or else the first branch that holds the commit.
  const ref = input.ref ?? found?.ref ?? (await firstBranchHolding(dir, input.sha));
  if (ref === null) throw notFound('References for commit');

  const protections = await loadRefProtections(ctx.db, project.id);
  if (!mayUpdatePipelineOf(protections, ref, found?.tag ?? false, pusherOf(input.project, actor))) throw forbidden();
  const targetUrl = present(input.targetUrl);
  const description = present(input.description);
  const errors = commitStatusErrors({ name: input.name, ref: input.ref, targetUrl, description });
  if (found && (await nameTakenByJob(ctx.db, found.id, input.name))) addError(errors, 'name', TAKEN);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const refProtected = await protectedRef(dir, protections, ref);

  const now = ctx.now();
  const at = now.toISOString();
  const { status, pipeline } = await withTransaction(atTime(ctx, now), async (tx) => {
    const pipeline = found ?? (await externalPipeline(tx.db, input, ref, refProtected, actor.user.id, at));
    // One status change of a pipeline at a time (the platform's add-job lock).
    await tx.db.selectFrom('ci_pipelines').select('id').where('id', '=', pipeline.id).$if(postgres(tx.db), (q) => q.forNoKeyUpdate()).execute();
    const live = await tx.db
      .selectFrom('ci_builds')
      .selectAll()
      .where('pipeline_id', '=', pipeline.id)
      .where('type', '=', GENERIC_TYPE)
      .where('name', '=', input.name)
      .where('ref', '=', pipeline.ref)
      .where('user_id', '=', actor.user.id)
      .where('protected', '=', refProtected)
      .where('status', 'in', ['pending', 'running'])
      .orderBy('id')
      .executeTakeFirst();
    const change = commitStatusChange((live?.status ?? 'created') as Status, input.state, now);
    if ('refused' in change) throw apiError(400, change.refused);
    const values = {
      status: change.to,
      failure_reason: change.failureReason,
      ...(change.timestamps.queuedAt ? { queued_at: at } : {}),
      ...(change.timestamps.startedAt ? { started_at: at } : {}),
      ...(change.timestamps.finishedAt ? { finished_at: at } : {}),
      ...(targetUrl !== undefined ? { target_url: targetUrl } : {}),
      ...(description !== undefined ? { description } : {}),
      ...(input.coverage !== undefined ? { coverage: input.coverage } : {}),
      updated_at: at,
    };
    const status = live
      ? await tx.db.updateTable('ci_builds').set(values).where('id', '=', live.id).returningAll().executeTakeFirstOrThrow()
      : await tx.db.insertInto('ci_builds').values({ ...newStatus(pipeline, input.name, refProtected, actor.user.id, at), ...values }).returningAll().executeTakeFirstOrThrow();
    await tx.db.updateTable('ci_builds').set({ retried: true }).where('pipeline_id', '=', pipeline.id).where('name', '=', input.name).where('retried', '=', false).where('id', '!=', status.id).execute();
    const processed = (await processInTransaction(tx, pipeline.id))?.pipeline ?? pipeline;
    // A pipeline this completes leaves follow-up work (its persistent ref, a bridge depending on it).
    if (isCompleted(processed.status as Status)) await processLater(tx.db, pipeline.id);
    return { status, pipeline: processed };
  });
  return { ...status, sha: pipeline.sha };
}

/** Whether a job or bridge of the pipeline has the name (a status may not take it over). */
async function nameTakenByJob(db: Kysely<DB>, pipelineId: number, name: string): Promise<boolean> {
  const row = await db.selectFrom('ci_builds').select('id').where('pipeline_id', '=', pipelineId).where('name', '=', name).where('type', '!=', GENERIC_TYPE).executeTakeFirst();
  return row !== undefined;
}

/** The `external` pipeline of the commit and ref: made once, however many statuses arrive at once. */
async function externalPipeline(db: Kysely<DB>, input: PostStatusInput, ref: string, refProtected: boolean, userId: number, at: string): Promise<CiPipelineRow> {
  const projectId = input.project.row.id;
  await lockProjectPipelines(db, projectId);
  const made = await matchingPipeline(db, projectId, input.sha, { ref: input.ref, pipelineId: input.pipelineId });
  if (made) return made;
  return insertPipeline(db, {
    project_id: projectId,
    ref,
    sha: input.sha,
    before_sha: ZERO_SHA,
    tag: false,
    protected: refProtected,
    source: 'external',
    status: 'created',
    user_id: userId,
    created_at: at,
    updated_at: at,
  });
}

function newStatus(pipeline: CiPipelineRow, name: string, refProtected: boolean, userId: number, at: string) {
  return {
    pipeline_id: pipeline.id,
    project_id: pipeline.project_id,
    type: GENERIC_TYPE,
    name,
    stage: EXTERNAL_STAGE,
    stage_idx: EXTERNAL_STAGE_IDX,
    ref: pipeline.ref,
    tag: pipeline.tag,
    protected: refProtected,
    when: 'on_success',
    allow_failure: false,
    interruptible: false,
    scheduling_type: 'stage',
    options: '{}',
    yaml_variables: '[]',
    tag_list: '[]',
    retried: false,
    user_id: userId,
    created_at: at,
  };
}
