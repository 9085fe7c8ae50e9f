// Pipeline triggers: creating, renaming and deleting a project's tokens, and running a pipeline
// with a token (14.x Ci::PipelineTriggerService). A trigger's token runs a pipeline as the
// trigger's owner (source `trigger`); a running job's CI_JOB_TOKEN runs one as the job's user
// (source `pipeline`, its upstream job, pipeline and project recorded). The variables given, and
// the whole request but its token as the file variable TRIGGER_PAYLOAD, become pipeline variables.
import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../core/context.ts';
import { digest } from '../../core/auth/secrets.ts';
import { DomainError, apiError, notFound } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiPipelineRow, CiTriggerRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { pipelineRefusal } from '../pipelines/index.ts';
import { type PipelineVariableInput, createPipeline } from '../pipelines/pipelines.service.ts';
import { triggerByToken } from './ci-triggers.finder.ts';

/** 14.x tokens: 40 hexadecimal characters. */
const newToken = () => randomBytes(20).toString('hex');

export async function createTrigger(ctx: ServiceContext, project: ProjectRow, owner: UserRow, description: string): Promise<{ row: CiTriggerRow; token: string }> {
  const token = newToken();
  const at = ctx.now().toISOString();
  const row = await ctx.db
    .insertInto('ci_triggers')
    .values({
      project_id: project.id,
      owner_id: owner.id,
      description,
      token_digest: digest(token),
      token_encrypted: secretBox(ctx.config.dataDir).seal(token),
      last_used: null,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, token };
}

export async function updateTrigger(ctx: ServiceContext, row: CiTriggerRow, description: string | undefined): Promise<CiTriggerRow> {
  if (description === undefined) return row;
  return ctx.db.updateTable('ci_triggers').set({ description, updated_at: ctx.now().toISOString() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteTrigger(ctx: ServiceContext, row: CiTriggerRow): Promise<void> {
  await ctx.db.deleteFrom('ci_triggers').where('id', '=', row.id).execute();
}

export interface TriggerRequest {
  project: ProjectRow;
  token: string;
  ref: string;
  variables: Record<string, string>;
  /** Every parameter of the request but the token, as the platform serializes them. */
  payload: Record<string, unknown>;
}

const failure = (message: string, status: number) => new DomainError({ status, message });

/** Who runs the pipeline, and as what: a trigger's owner or a running job's user. */
async function runnerOf(ctx: ServiceContext, request: TriggerRequest) {
  const trigger = await triggerByToken(ctx.db, request.token);
  if (trigger) {
    // A token of another project does not reveal that this one exists.
    if (trigger.project_id !== request.project.id || trigger.owner_id === null) return null;
    const owner = await ctx.db.selectFrom('users').selectAll().where('id', '=', trigger.owner_id).executeTakeFirst();
    return owner ? { user: owner, trigger, upstream: null } : null;
  }
  const job = await ctx.db.selectFrom('ci_builds').selectAll().where('token_digest', '=', digest(request.token)).executeTakeFirst();
  if (!job || job.user_id === null) return null;
  if (job.status !== 'running') throw failure('Job is not running', 401);
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', job.user_id).executeTakeFirst();
  if (!user) return null;
  return { user, trigger: null, upstream: { jobId: job.id, pipelineId: job.pipeline_id, projectId: job.project_id } };
}

/** Runs a pipeline for a trigger request; throws the platform's answers (404 for an unknown token, 400 when no pipeline could be made). */
export async function triggerPipeline(ctx: ServiceContext, request: TriggerRequest): Promise<CiPipelineRow> {
  const who = await runnerOf(ctx, request);
  if (!who) throw notFound();
  const refusal = await pipelineRefusal(ctx.db, who.user, request.project, request.ref);
  if (refusal === 'invisible') throw notFound();
  if (refusal !== null) throw apiError(400, refusal);
  const variables: PipelineVariableInput[] = [
    ...Object.entries(request.variables).map(([key, value]) => ({ key, value })),
    { key: 'TRIGGER_PAYLOAD', value: JSON.stringify(request.payload), variable_type: 'file' },
  ];
  const trigger = who.trigger;
  const result = await createPipeline(ctx, {
    project: request.project,
    ref: request.ref,
    source: trigger ? 'trigger' : 'pipeline',
    user: who.user,
    variables,
    saveFailed: true,
    triggerId: trigger?.id ?? null,
    upstream: who.upstream,
    onSaved: trigger ? (db) => db.updateTable('ci_triggers').set({ last_used: ctx.now().toISOString() }).where('id', '=', trigger.id).execute().then(() => undefined) : undefined,
  });
  if ('pipeline' in result) return result.pipeline;
  throw apiError(400, 'error' in result ? result.error : 'reason' in result ? result.reason : 'Missing CI config file');
}
