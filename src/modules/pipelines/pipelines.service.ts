// Creating pipelines (notes gitlab-ci.md §3.1): the configuration at the pipeline's commit is
// compiled and seeded with the pipeline's variables, and the pipeline, its jobs and variables and
// the work of processing it are written in one transaction, so that a pipeline exists whole or not
// at all. A configuration error is answered (the API) or saved as a failed pipeline with its
// `yaml_errors` (pushes and the other sources that keep incomplete pipelines).
import { type Insertable, type Kysely, PostgresAdapter } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import { atTime, withTransaction } from '../../core/context.ts';
import { ancestorIds } from '../../core/access/authorizations.ts';
import { DomainError } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiBuildRow, CiPipelineRow, CiPipelinesTable, DB, ProjectRow, UserRow } from '../../db/schema.ts';
import { repositoryDir } from '../../domain/project-repository.ts';
import { withRepositoryWrite } from '../../domain/push-leases.ts';
import { isProtectedBranch, isProtectedTag } from '../../domain/ref-protection.ts';
import { applicationSettings } from '../../domain/settings/application-settings.ts';
import { loadProjectSettings } from '../../domain/settings/project-settings.ts';
import { getCommit, readBlob, readTree } from '../../git/commits.ts';
import { validRefName } from '../../git/args.ts';
import { deleteRef, resolveRef } from '../../git/refs.ts';
import { pipelineArtifactsDir } from '../../storage/artifact-paths.ts';
import { removeArtifactFilesLater } from '../../storage/deferred-removal.ts';
import { CiConfigError, type SeededJob, compileConfig, seedPipeline } from '../../ci/config/index.ts';
import { type CiVariable, pipelineVariables, storedVar, variableMap } from '../../ci/variables.ts';
import { variablesForEnvironment, variablesForProject } from './reaching-variables.ts';
import { loadRefProtections } from '../protected-refs/protected-refs.finder.ts';
import { includeResolver, readPipelineConfig } from './pipeline-config.ts';
import { pipelineMergeRequests, predefinedProjectVariables } from './project-variables.ts';
import { persistentRef, processLater } from './pipeline-work.ts';
import { pipelineJobOf, pipelineTodosLater, processInTransaction, writeJobChanges } from './processing.ts';
import { cancelJobChange, cancelPipelineChanges, retryJobPlan, retryPipelinePlan } from '../../ci/processing.ts';
import type { Status } from '../../ci/status.ts';

export const ZERO_SHA = '0000000000000000000000000000000000000000';
/** The platform's test of a commit message that asks for no pipeline (chain/skip.rb). */
const SKIP_CI = /\[(ci[ _-]skip|skip[ _-]ci)\]/i;

export interface PipelineVariableInput {
  key: string;
  value: string;
  variable_type?: 'env_var' | 'file';
}

export interface CreatePipelineInput {
  project: ProjectRow;
  /** A branch or tag name; a merge request pipeline's refs/merge-requests/<iid>/head. */
  ref: string;
  /** The merge request of a `merge_request_event` pipeline. */
  mergeRequestId?: number;
  /** Known for pushes; found otherwise (a branch first, as the platform looks). */
  refType?: 'branch' | 'tag';
  /** The commit; the ref's head when absent. */
  sha?: string;
  beforeSha?: string;
  source: string;
  user: UserRow | null;
  variables?: readonly PipelineVariableInput[];
  /** Keep a pipeline whose configuration fails, with its yaml_errors (pushes, schedules, triggers). */
  saveFailed: boolean;
  /** The configuration itself, for a child pipeline (its bridge's `trigger:include`). */
  content?: { path: string; text: string };
  /** Honour `[ci skip]` in the commit message (pushes only). */
  skip?: boolean;
  /** The push asked for no pipeline (`-o ci.skip`): a skipped one is saved. */
  forceSkip?: boolean;
  /** Paths the push changed, for `rules:changes`; null when unknown. */
  changedPaths?: readonly string[] | null;
  triggerId?: number | null;
  scheduleId?: number | null;
  /** The job (and its pipeline and project) that made this pipeline: a bridge, or a job whose token triggered it. */
  upstream?: { jobId: number; pipelineId: number; projectId: number } | null;
  /** Variables that count for rules and expressions but are not saved with the pipeline (a schedule's, read again by its jobs). */
  extraVariables?: readonly PipelineVariableInput[];
  /** Runs inside the transaction that saves the pipeline (a background job completing itself). */
  onSaved?: (db: Kysely<DB>, pipeline: CiPipelineRow) => Promise<void>;
  /** Builds the pipeline without saving anything (lint's `dry_run`): answers `{ simulated }`. */
  dryRun?: boolean;
}

/** What a dry run would have saved. */
export interface SimulatedPipeline {
  jobs: SeededJob[];
  warnings: string[];
  mergedYaml: string;
}

export type CreatePipelineResult = { pipeline: CiPipelineRow } | { error: string } | { none: true; reason: string } | { simulated: SimulatedPipeline };

/** The 400 the API answers for a pipeline that could not be created (`{"message": {"base": [...]}}`). */
export const pipelineError = (message: string) => new DomainError({ status: 400, message, fields: { base: [message] } });

async function findRef(dir: string, input: CreatePipelineInput): Promise<{ refType: 'branch' | 'tag'; sha: string } | null> {
  if (input.mergeRequestId !== undefined) {
    const sha = input.sha ?? (await resolveRef(dir, input.ref));
    return sha ? { refType: 'branch', sha } : null;
  }
  if (input.refType) {
    const sha = input.sha ?? (await resolveRef(dir, `refs/${input.refType === 'branch' ? 'heads' : 'tags'}/${input.ref}`));
    return sha ? { refType: input.refType, sha } : null;
  }
  for (const refType of ['branch', 'tag'] as const) {
    const sha = await resolveRef(dir, `refs/${refType === 'branch' ? 'heads' : 'tags'}/${input.ref}`);
    if (sha) return { refType, sha: input.sha ?? sha };
  }
  return null;
}

/**
 * Creates a pipeline. `{ none }`: nothing to do (no configuration on a push, or every job filtered out), and why; `{ error }`:
 * the pipeline could not be created and nothing was saved (the API answers it as a 400).
 */
export async function createPipeline(ctx: ServiceContext, input: CreatePipelineInput): Promise<CreatePipelineResult> {
  const { project } = input;
  const dir = repositoryDir(ctx.config, project);
  // A name git would refuse is no branch or tag of the project.
  const found = dir === null || !validRefName(`refs/heads/${input.ref}`) ? null : await findRef(dir, input);
  if (!dir || !found) return { error: 'Reference not found' };
  const commit = await getCommit(dir, found.sha);
  if (!commit) return { error: 'Commit not found' };

  const [settings] = (await loadProjectSettings(ctx.db, [project])).values();
  const configured = settings?.ciCd.ci_config_path ?? null;
  const namespace = await ctx.db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow();
  const protections = await loadRefProtections(ctx.db, project.id);
  // A merge request's ref is no branch: its pipelines are never protected.
  const refProtected = input.mergeRequestId !== undefined ? false : found.refType === 'branch' ? isProtectedBranch(protections, input.ref) : isProtectedTag(protections, input.ref);
  const beforeSha = input.beforeSha ?? ZERO_SHA;
  const now = ctx.now();
  const base = {
    project_id: project.id,
    ref: input.ref,
    sha: found.sha,
    before_sha: beforeSha,
    tag: found.refType === 'tag',
    protected: refProtected,
    source: input.source,
    user_id: input.user?.id ?? null,
    trigger_id: input.triggerId ?? null,
    schedule_id: input.scheduleId ?? null,
    source_job_id: input.upstream?.jobId ?? null,
    source_pipeline_id: input.upstream?.pipelineId ?? null,
    source_project_id: input.upstream?.projectId ?? null,
    merge_request_id: input.mergeRequestId ?? null,
    committed_at: new Date(commit.committer.date).toISOString(),
    // The platform's default_pipeline_lock: a project that keeps its latest artifacts (and an
    // instance that lets it) makes its pipelines artifacts_locked.
    locked: (settings?.ciCd.keep_latest_artifact ?? true) && (await applicationSettings(ctx.db)).keep_latest_artifact,
  };

  let source;
  try {
    source = input.content ? { path: input.content.path, content: input.content.text } : await readPipelineConfig(ctx, project, found.sha, configured);
  } catch (error) {
    if (!(error instanceof CiConfigError)) throw error;
    return failed(ctx, input, base, error.message, configured);
  }
  if (!source) return input.saveFailed ? { none: true, reason: 'Missing CI config file' } : { error: 'Missing CI config file' };

  if (input.forceSkip || (input.skip && SKIP_CI.test(commit.message))) {
    return { pipeline: await savePipeline(ctx, input, { ...base, status: 'skipped', config_path: source.path }, [], now) };
  }

  const mergeRequests = await pipelineMergeRequests(ctx.db, ctx.config, project, { ref: input.ref, tag: found.refType === 'tag', mergeRequestId: input.mergeRequestId ?? null });
  const predefined: CiVariable[] = [
    ...predefinedProjectVariables(ctx.config, project, namespace, source.path),
    ...pipelineVariables(
      { id: null, iid: null, source: input.source, ref: input.ref, refType: found.refType, refProtected, createdAt: null, url: null, triggered: input.triggerId != null, ...mergeRequests },
      { sha: found.sha, beforeSha, message: commit.message, timestamp: commit.committer.date, author: `${commit.author.name} <${commit.author.email}>` },
      input.user ? { id: input.user.id, username: input.user.username, name: input.user.name, email: input.user.email } : null,
    ),
  ];
  const box = secretBox(ctx.config.dataDir);
  const scoped = await variablesForProject(ctx.db, box, { id: project.id, namespaceTraversal: namespace.type === 'Group' ? ancestorIds(namespace.traversal_path) : [] }, refProtected);
  const forExpressions = variableMap([
    ...predefined,
    ...variablesForEnvironment(scoped, null),
    ...[...(input.variables ?? []), ...(input.extraVariables ?? [])].map((v) => storedVar({ ...v, variable_type: v.variable_type ?? 'env_var' })),
  ]);

  let seeded;
  let compiled;
  try {
    compiled = await compileConfig({ content: source.content, resolveInclude: includeResolver(ctx, project, found.sha, input.source === 'parent_pipeline' ? (input.upstream?.pipelineId ?? null) : null) });
    seeded = await seedPipeline(compiled, {
      variables: forExpressions,
      source: input.source,
      ref: input.ref,
      refType: found.refType,
      changedPaths: input.changedPaths ? [...input.changedPaths] : null,
      listPaths: async () => ((await readTree(dir, found.sha, '', { recursive: true })) ?? []).filter((e) => e.type === 'blob').map((e) => e.path),
    });
  } catch (error) {
    if (!(error instanceof CiConfigError)) throw error;
    return failed(ctx, input, { ...base, config_path: source.path }, error.message, configured);
  }
  if (seeded.filteredOut) return input.saveFailed ? { none: true, reason: seeded.message } : { error: seeded.message };
  if (input.dryRun) return { simulated: { jobs: seeded.jobs, warnings: [...new Set([...compiled.warnings, ...seeded.warnings])], mergedYaml: compiled.mergedYaml } };
  const pipeline = await savePipeline(ctx, input, { ...base, status: 'created', config_path: source.path }, seeded.jobs, now);
  if (input.source !== 'parent_pipeline' && settings?.ciCd.auto_cancel_pending_pipelines === 'enabled') await cancelRedundantPipelines(ctx, pipeline);
  return { pipeline };
}

type PipelineBase = Omit<CiPipelineRow, 'id' | 'iid' | 'status' | 'failure_reason' | 'yaml_errors' | 'config_path' | 'duration' | 'started_at' | 'finished_at' | 'created_at' | 'updated_at'>;

/** A configuration error: saved as a failed pipeline where the source keeps those, else returned. */
async function failed(ctx: ServiceContext, input: CreatePipelineInput, base: PipelineBase & { config_path?: string }, message: string, configured: string | null): Promise<CreatePipelineResult> {
  if (!input.saveFailed) return { error: message };
  const pipeline = await savePipeline(ctx, input, { config_path: configured, ...base, status: 'failed', failure_reason: 'config_error', yaml_errors: message }, [], ctx.now());
  return { pipeline };
}

interface PipelineValues extends PipelineBase {
  status: string;
  config_path: string | null;
  failure_reason?: string;
  yaml_errors?: string;
}

/** Writes a pipeline, its jobs and variables, and its processing, in one transaction. */
async function savePipeline(ctx: ServiceContext, input: CreatePipelineInput, values: PipelineValues, jobs: readonly SeededJob[], now: Date): Promise<CiPipelineRow> {
  const at = now.toISOString();
  const variables = input.variables ?? [];
  const box = secretBox(ctx.config.dataDir);
  return withTransaction(atTime(ctx, now), async (tx) => {
    const finished = values.status === 'failed' || values.status === 'skipped';
    const pipeline = await insertPipeline(tx.db, { ...values, finished_at: finished ? at : null, created_at: at, updated_at: at });
    if (variables.length > 0) {
      await tx.db
        .insertInto('ci_pipeline_variables')
        .values(variables.map((v) => ({ pipeline_id: pipeline.id, key: v.key, value_encrypted: box.seal(v.value), variable_type: v.variable_type ?? 'env_var' })))
        .execute();
    }
    if (jobs.length > 0) {
      // In slices: SQLite binds at most 32,766 values to a statement, and a job takes about thirty.
      for (let i = 0; i < jobs.length; i += 500) {
        await tx.db.insertInto('ci_builds').values(jobs.slice(i, i + 500).map((job) => buildValues(pipeline, job, at))).execute();
      }
      await processLater(tx.db, pipeline.id);
    }
    await input.onSaved?.(tx.db, pipeline);
    return pipeline;
  });
}

/** Locks the project's row, which orders the pipelines of one project: their iids never collide. */
export async function lockProjectPipelines(db: Kysely<DB>, projectId: number): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.selectFrom('projects').select('id').where('id', '=', projectId).$if(postgres, (q) => q.forNoKeyUpdate()).executeTakeFirstOrThrow();
}

/** Inserts a pipeline with the project's next iid, inside the caller's transaction. */
export async function insertPipeline(db: Kysely<DB>, values: Omit<Insertable<CiPipelinesTable>, 'iid'>): Promise<CiPipelineRow> {
  await lockProjectPipelines(db, values.project_id);
  const last = await db.selectFrom('ci_pipelines').select((eb) => eb.fn.max('iid').as('iid')).where('project_id', '=', values.project_id).executeTakeFirst();
  return db.insertInto('ci_pipelines').values({ ...values, iid: Number(last?.iid ?? 0) + 1 }).returningAll().executeTakeFirstOrThrow();
}

function buildValues(pipeline: CiPipelineRow, job: SeededJob, at: string) {
  return {
    pipeline_id: pipeline.id,
    project_id: pipeline.project_id,
    type: job.trigger ? 'bridge' : 'build',
    name: job.name,
    stage: job.stage,
    stage_idx: job.stageIdx,
    status: 'created',
    ref: pipeline.ref,
    tag: pipeline.tag,
    protected: pipeline.protected,
    when: job.when,
    allow_failure: job.allowFailure,
    scheduling_type: job.schedulingType,
    needs: job.needs === null ? null : JSON.stringify(job.needs),
    options: JSON.stringify({ ...job.options, start_in: job.startIn, allow_failure_exit_codes: job.allowFailureExitCodes, dependencies: job.dependencies, trigger: job.trigger }),
    yaml_variables: JSON.stringify([...job.yamlVariables, ...job.parallelVariables]),
    tag_list: JSON.stringify(job.tags),
    coverage_regex: job.coverageRegex,
    resource_group: job.resourceGroup,
    environment: job.environment,
    interruptible: job.interruptible ?? false,
    retried: false,
    user_id: pipeline.user_id,
    created_at: at,
    updated_at: at,
  };
}

/** The API's answer when a pipeline could not be created. */
export function requireCreated(result: CreatePipelineResult): CiPipelineRow {
  if ('pipeline' in result) return result.pipeline;
  throw pipelineError('error' in result ? result.error : 'reason' in result ? result.reason : 'Missing CI config file');
}

/**
 * Whether a push of `sha` may make a pipeline: the project's configuration is in that commit (or
 * comes from another project). A push without one makes none, and needs no background job.
 */
export async function pushMayMakePipeline(ctx: ServiceContext, project: ProjectRow, sha: string): Promise<boolean> {
  const [settings] = (await loadProjectSettings(ctx.db, [project])).values();
  const path = settings?.ciCd.ci_config_path || '.gitlab-ci.yml';
  if (path.includes('@')) return true;
  const dir = repositoryDir(ctx.config, project);
  return dir !== null && (await readBlob(dir, sha, path)) !== null;
}

/**
 * A new pipeline makes older live pipelines of its ref redundant (the project setting
 * auto_cancel_pending_pipelines): those whose started jobs are all interruptible are canceled.
 */
async function cancelRedundantPipelines(ctx: ServiceContext, pipeline: CiPipelineRow): Promise<void> {
  const older = await ctx.db
    .selectFrom('ci_pipelines')
    .selectAll()
    .where('project_id', '=', pipeline.project_id)
    .where('ref', '=', pipeline.ref)
    .where('id', '<', pipeline.id)
    .where('source', '!=', 'parent_pipeline')
    .where('status', 'in', ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'scheduled'])
    .execute();
  for (const candidate of older) {
    const started = await ctx.db
      .selectFrom('ci_builds')
      .select('interruptible')
      .where('pipeline_id', '=', candidate.id)
      .where('type', '=', 'build')
      .where('retried', '=', false)
      .where('started_at', 'is not', null)
      .execute();
    if (started.every((job) => job.interruptible)) await cancelPipeline(ctx, candidate);
  }
}

// ---- Changing pipelines --------------------------------------------------------------------------

/** Cancels every cancelable job of the pipeline (manual jobs stay), then processes it (notes §2.7). */
export async function cancelPipeline(ctx: ServiceContext, pipeline: CiPipelineRow): Promise<CiPipelineRow> {
  const now = ctx.now();
  return withTransaction(atTime(ctx, now), async (tx) => {
    const rows = await tx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline.id).execute();
    const changes = cancelPipelineChanges(rows.map(pipelineJobOf), now);
    await writeJobChanges(tx.db, new Map(rows.map((r) => [r.id, r])), changes, now);
    return (await processInTransaction(tx, pipeline.id))?.pipeline ?? pipeline;
  });
}

/** Deletes the pipeline with its jobs, logs, artifacts and variables. */
export async function deletePipeline(ctx: ServiceContext, pipeline: CiPipelineRow, project: ProjectRow): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db.deleteFrom('ci_pipelines').where('id', '=', pipeline.id).execute();
    // Its jobs' artifact files go once the rows are gone (they cascade with the pipeline).
    await removeArtifactFilesLater(tx.db, [pipelineArtifactsDir(project.id, pipeline.id)]);
  });
  const dir = repositoryDir(ctx.config, project);
  // Best effort, under a push lease: a ref a storage move keeps is only a hidden ref too many.
  if (dir !== null) await withRepositoryWrite(ctx, { kind: 'project', id: project.id, storage: project.repository_storage }, () => deleteRef(dir, persistentRef(pipeline.id))).catch(() => undefined);
}

/** A new record of a job, for a retry: its attributes, a new id, the retrying user (notes §2.6). */
async function cloneJob(db: Kysely<DB>, source: CiBuildRow, userId: number | null, status: string, at: string, timestamps: { queuedAt?: Date }): Promise<CiBuildRow> {
  const { id: _id, ...copied } = source;
  return db
    .insertInto('ci_builds')
    .values({
      ...copied,
      status,
      user_id: userId,
      runner_id: null,
      token_digest: null,
      failure_reason: null,
      exit_code: null,
      coverage: null,
      timeout: null,
      timeout_source: null,
      trace_size: 0,
      downstream_pipeline_id: null,
      artifacts_expire_at: null,
      erased_at: null,
      erased_by_id: null,
      scheduled_at: null,
      queued_at: timestamps.queuedAt ? timestamps.queuedAt.toISOString() : null,
      started_at: null,
      finished_at: null,
      retried: false,
      created_at: at,
      updated_at: at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

async function pipelineJobs(db: Kysely<DB>, pipelineId: number): Promise<CiBuildRow[]> {
  return db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute();
}

/** Retries one job: a new record, enqueued at once; the old one marked retried; its merge requests' failure to-dos done. Null when not retryable. */
export async function retryJob(ctx: ServiceContext, job: CiBuildRow, userId: number | null): Promise<CiBuildRow | null> {
  const now = ctx.now();
  return withTransaction(atTime(ctx, now), async (tx) => {
    const rows = await pipelineJobs(tx.db, job.pipeline_id);
    const plan = retryJobPlan(rows.map((r) => ({ ...pipelineJobOf(r), bridge: r.type === 'bridge' })), job.id, now);
    if (!plan) return null;
    await tx.db.updateTable('ci_builds').set({ retried: true }).where('id', 'in', plan.markRetried).execute();
    const clone = await cloneJob(tx.db, job, userId, 'created', now.toISOString(), {});
    const byId = new Map([...rows.map((r) => [r.id, r] as const), [clone.id, clone]]);
    await writeJobChanges(tx.db, byId, [{ id: clone.id, from: 'created', to: plan.cloneStatus, event: 'enqueue', ...plan.cloneTimestamps }, ...plan.changes], now);
    const processed = await processInTransaction(tx, job.pipeline_id);
    if (processed) await pipelineTodosLater(tx.db, processed.pipeline, 'retried');
    return (await tx.db.selectFrom('ci_builds').selectAll().where('id', '=', clone.id).executeTakeFirstOrThrow()) as CiBuildRow;
  });
}

/** Retries a pipeline: its failed and canceled jobs cloned (its merge requests' failure to-dos done), its skipped ones reset, then processed. */
export async function retryPipeline(ctx: ServiceContext, pipeline: CiPipelineRow, userId: number | null): Promise<CiPipelineRow> {
  const now = ctx.now();
  return withTransaction(atTime(ctx, now), async (tx) => {
    // Commit statuses of external systems are theirs to report again: a retry leaves them.
    const rows = (await pipelineJobs(tx.db, pipeline.id)).filter((r) => r.type !== 'generic');
    const plan = retryPipelinePlan(rows.map((r) => ({ ...pipelineJobOf(r), bridge: r.type === 'bridge' })), now);
    if (plan.markRetried.length > 0) await tx.db.updateTable('ci_builds').set({ retried: true }).where('id', 'in', plan.markRetried).execute();
    for (const id of plan.cloneOf) await cloneJob(tx.db, rows.find((r) => r.id === id) as CiBuildRow, userId, 'created', now.toISOString(), {});
    await writeJobChanges(tx.db, new Map(rows.map((r) => [r.id, r])), plan.changes, now);
    if (plan.cloneOf.length > 0) await pipelineTodosLater(tx.db, pipeline, 'retried');
    return (await processInTransaction(tx, pipeline.id))?.pipeline ?? pipeline;
  });
}

/** Cancels one job; null when it cannot be canceled. */
export async function cancelJob(ctx: ServiceContext, job: CiBuildRow): Promise<CiBuildRow | null> {
  const now = ctx.now();
  return withTransaction(atTime(ctx, now), async (tx) => {
    const change = cancelJobChange(pipelineJobOf(job), now);
    if (!change) return null;
    await writeJobChanges(tx.db, new Map([[job.id, job]]), [change], now);
    await processInTransaction(tx, job.pipeline_id);
    return (await tx.db.selectFrom('ci_builds').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow()) as CiBuildRow;
  });
}

/** Plays a manual (or delayed) job as `userId`: it becomes pending; null when it is not playable. */
export async function playJob(ctx: ServiceContext, job: CiBuildRow, userId: number | null): Promise<CiBuildRow | null> {
  if (job.status !== 'manual' && job.status !== 'scheduled') return null;
  const now = ctx.now();
  return withTransaction(atTime(ctx, now), async (tx) => {
    const to = job.resource_group ? 'waiting_for_resource' : 'pending';
    await tx.db.updateTable('ci_builds').set({ user_id: userId }).where('id', '=', job.id).execute();
    await writeJobChanges(tx.db, new Map([[job.id, job]]), [{ id: job.id, from: job.status as Status, to, event: 'enqueue', queuedAt: now }], now);
    await processInTransaction(tx, job.pipeline_id);
    return (await tx.db.selectFrom('ci_builds').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow()) as CiBuildRow;
  });
}
