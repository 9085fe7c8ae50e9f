// Applies a processing pass (ci/processing.ts, pure) to the database: the pipeline's row is locked,
// its jobs read, the transitions written, jobs that became pending queued for runners, and the
// pipeline's own status, times and duration updated, in one transaction. Runs as the background
// job `pipeline.process` after every change of a job, on any node.
import { PostgresAdapter, type Kysely } from 'kysely';
import type { ServiceContext } from '../../core/context.ts';
import type { CiBuildRow, CiPipelineRow, DB } from '../../db/schema.ts';
import { type JobChange, type PipelineJob, assignResources, busyResourceGroups, enqueueDueScheduled, pipelineDuration, processPipeline } from '../../ci/processing.ts';
import { type Status, isCompleted } from '../../ci/status.ts';
import { enqueueHookEvent } from '../../jobs/web-hooks.ts';
import { AUTO_MERGE, PIPELINE_TODOS } from '../../jobs/merge-request-work.ts';
import { INGESTED_REPORT_TYPES, INGEST_SECURITY_REPORTS } from '../../jobs/security-work.ts';
import { enqueue } from '../../jobs/queue.ts';
import { announcePendingBuilds } from './pending-builds.ts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const date = (s: string | null) => (s ? new Date(s) : null);

/** A job row as the pure processing reads it. */
export function pipelineJobOf(row: CiBuildRow): PipelineJob {
  const options = JSON.parse(row.options) as { start_in?: number | null };
  const needs = row.needs === null ? null : (JSON.parse(row.needs) as { name: string }[]).map((n) => n.name);
  return {
    id: row.id,
    name: row.name,
    stageIdx: row.stage_idx,
    status: row.status as Status,
    when: row.when as PipelineJob['when'],
    allowFailure: row.allow_failure,
    schedulingType: row.scheduling_type as PipelineJob['schedulingType'],
    needs: row.scheduling_type === 'dag' ? (needs ?? []) : null,
    retried: row.retried,
    resourceGroup: row.resource_group,
    scheduledAt: date(row.scheduled_at),
    startInSeconds: options.start_in ?? null,
  };
}

/** Writes job transitions: each only from the status it was computed from, so a concurrent change wins. */
export async function writeJobChanges(db: Kysely<DB>, rows: ReadonlyMap<number, CiBuildRow>, changes: readonly JobChange[], now: Date): Promise<number[]> {
  const pending: number[] = [];
  for (const change of changes) {
    const updated = await db
      .updateTable('ci_builds')
      .set({
        status: change.to,
        updated_at: now.toISOString(),
        ...(change.queuedAt ? { queued_at: iso(change.queuedAt) } : {}),
        ...(change.startedAt ? { started_at: iso(change.startedAt) } : {}),
        ...(change.finishedAt ? { finished_at: iso(change.finishedAt) } : {}),
        ...(change.scheduledAt !== undefined ? { scheduled_at: iso(change.scheduledAt) } : {}),
      })
      .where('id', '=', change.id)
      .where('status', '=', change.from)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) continue;
    const row = rows.get(change.id);
    if (row?.type === 'build') await enqueueHookEvent(db, { projectId: row.project_id }, { kind: 'job', buildId: change.id });
    if (change.to === 'pending' && row?.type === 'build') pending.push(change.id);
    if (change.from === 'pending') await db.deleteFrom('ci_pending_builds').where('build_id', '=', change.id).execute();
  }
  if (pending.length > 0) {
    const values = pending.map((id) => {
      const row = rows.get(id) as CiBuildRow;
      return { build_id: id, project_id: row.project_id, protected: row.protected, tag_list: row.tag_list, created_at: now.toISOString() };
    });
    await db.insertInto('ci_pending_builds').values(values).onConflict((oc) => oc.column('build_id').doNothing()).execute();
    await announcePendingBuilds(db);
  }
  return pending;
}

/** Groups whose resource a job of another pipeline of the project holds. */
async function resourceGroupsBusyElsewhere(db: Kysely<DB>, pipeline: CiPipelineRow): Promise<Set<string>> {
  const rows = await db
    .selectFrom('ci_builds')
    .select(['id', 'status', 'resource_group'])
    .where('project_id', '=', pipeline.project_id)
    .where('pipeline_id', '!=', pipeline.id)
    .where('resource_group', 'is not', null)
    .where('status', 'in', ['preparing', 'pending', 'running'])
    .execute();
  return busyResourceGroups(rows.map((r) => ({ id: r.id, status: r.status as Status, resourceGroup: r.resource_group })));
}

export interface ProcessedPipeline {
  pipeline: CiPipelineRow;
  /** Bridges that became pending: their downstream pipelines are to be created. */
  pendingBridges: number[];
  /** When delayed jobs scheduled by this pass become due: the pipeline is processed again then. */
  dueTimes: Date[];
}

/** One processing pass inside the caller's transaction; null when the pipeline is gone. */
export async function processInTransaction(ctx: ServiceContext, pipelineId: number): Promise<ProcessedPipeline | null> {
  const { db } = ctx;
  const now = ctx.now();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const pipeline = await db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).$if(postgres, (q) => q.forNoKeyUpdate()).executeTakeFirst();
  if (!pipeline) return null;
  const rows = await db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipeline.id).orderBy('id').execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  let jobs = rows.map(pipelineJobOf);

  const changes: JobChange[] = [...enqueueDueScheduled(jobs, now)];
  const processed = processPipeline(applyChanges(jobs, changes), now, { pipelineStatus: pipeline.status as Status });
  changes.push(...processed.changes);
  jobs = processed.jobs;
  if (jobs.some((j) => j.status === 'waiting_for_resource')) {
    const assigned = assignResources(jobs, await resourceGroupsBusyElsewhere(db, pipeline), now);
    changes.push(...assigned);
    jobs = applyChanges(jobs, assigned);
  }
  await writeJobChanges(db, byId, mergeChanges(changes), now);
  const pendingBridges = changes.filter((c) => c.to === 'pending' && byId.get(c.id)?.type === 'bridge').map((c) => c.id);

  const status = processed.pipelineStatus === null ? pipeline.status : (processed.pipelineChange?.to ?? pipeline.status);
  const updated = await updatePipelineStatus(db, pipeline, status as Status, rows, jobs, now);
  const dueTimes = changes.filter((c) => c.to === 'scheduled' && c.scheduledAt).map((c) => c.scheduledAt as Date);
  return { pipeline: updated, pendingBridges, dueTimes };
}

function applyChanges(jobs: PipelineJob[], changes: readonly JobChange[]): PipelineJob[] {
  const byId = new Map(changes.map((c) => [c.id, c]));
  return jobs.map((j) => {
    const c = byId.get(j.id);
    return c ? { ...j, status: c.to, ...(c.scheduledAt !== undefined ? { scheduledAt: c.scheduledAt } : {}) } : j;
  });
}

/** Several passes may move one job twice: one change per job, from its first status to its last. */
function mergeChanges(changes: readonly JobChange[]): JobChange[] {
  const merged = new Map<number, JobChange>();
  for (const c of changes) {
    const earlier = merged.get(c.id);
    merged.set(c.id, earlier ? { ...earlier, ...c, from: earlier.from } : c);
  }
  return [...merged.values()];
}

/** Sets the pipeline's status, with its start, finish and duration. */
export async function updatePipelineStatus(db: Kysely<DB>, pipeline: CiPipelineRow, status: Status, rows: readonly CiBuildRow[], jobs: readonly PipelineJob[], now: Date): Promise<CiPipelineRow> {
  if (status === pipeline.status) return pipeline;
  const at = now.toISOString();
  const set: Partial<CiPipelineRow> = { status, updated_at: at };
  if (status === 'running' && !pipeline.started_at) set.started_at = at;
  if (isCompleted(status)) set.finished_at = at;
  if (isCompleted(status) || status === 'manual') {
    const statusById = new Map(jobs.map((j) => [j.id, j.status]));
    set.duration = pipelineDuration(
      rows.filter((r) => !r.retried).map((r) => ({ retried: false, status: statusById.get(r.id) ?? (r.status as Status), startedAt: date(r.started_at), finishedAt: date(r.finished_at), coverage: r.coverage })),
      now,
    );
  }
  if (!isCompleted(status)) set.finished_at = null;
  await db.updateTable('ci_pipelines').set(set).where('id', '=', pipeline.id).execute();
  await enqueueHookEvent(db, { projectId: pipeline.project_id }, { kind: 'pipeline', pipelineId: pipeline.id });
  if (status === 'success') await autoMergeAfterSuccess(db, pipeline.project_id);
  if (status === 'failed') await pipelineTodosLater(db, pipeline, 'failed');
  if (isCompleted(status)) await securityReportsLater(db, pipeline.id);
  return { ...pipeline, ...set };
}

/**
 * A pipeline that completed (whatever its status, as the platform stores its security reports)
 * with security report artifacts: their ingestion is enqueued with the status.
 */
async function securityReportsLater(db: Kysely<DB>, pipelineId: number): Promise<void> {
  const report = await db
    .selectFrom('ci_job_artifacts')
    .innerJoin('ci_builds', 'ci_builds.id', 'ci_job_artifacts.build_id')
    .select('ci_job_artifacts.id')
    .where('ci_builds.pipeline_id', '=', pipelineId)
    .where('ci_job_artifacts.file_type', 'in', [...INGESTED_REPORT_TYPES])
    .limit(1)
    .executeTakeFirst();
  if (report) await enqueue(db, INGEST_SECURITY_REPORTS, { pipelineId }, { dedupeKey: String(pipelineId) });
}

/** A successful pipeline may let merge requests set to merge when it succeeds merge: their check is enqueued with the status. */
async function autoMergeAfterSuccess(db: Kysely<DB>, projectId: number): Promise<void> {
  const waiting = await db.selectFrom('merge_requests').select('id').where('project_id', '=', projectId).where('state', '=', 'opened').where('merge_when_pipeline_succeeds', '=', true).limit(1).executeTakeFirst();
  if (waiting) await enqueue(db, AUTO_MERGE, { projectId }, { dedupeKey: String(projectId) });
}

/**
 * A pipeline that may be a merge request's failed or was retried: the to-dos of the merge
 * request's participants follow (`build_failed` made or done), enqueued with the change.
 */
export async function pipelineTodosLater(db: Kysely<DB>, pipeline: Pick<CiPipelineRow, 'id' | 'project_id' | 'ref' | 'tag' | 'merge_request_id'>, event: 'failed' | 'retried'): Promise<void> {
  const fromBranch = () =>
    db.selectFrom('merge_requests').select('id').where('project_id', '=', pipeline.project_id).where('source_branch', '=', pipeline.ref).where('state', '=', 'opened').limit(1).executeTakeFirst();
  if (pipeline.merge_request_id !== null || (!pipeline.tag && (await fromBranch()) !== undefined)) await enqueue(db, PIPELINE_TODOS, { pipelineId: pipeline.id, event });
}
