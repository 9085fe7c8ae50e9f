// Reading pipeline schedules: a project's (all, active or inactive), one, its variables and last
// pipeline, and the schedules due to run.
import type { Kysely } from 'kysely';
import type { SecretBox } from '../../core/secret-box.ts';
import type { CiPipelineRow, CiPipelineScheduleRow, CiPipelineScheduleVariableRow, DB } from '../../db/schema.ts';
import type { CiVariable } from '../../ci/variables.ts';
import { storedVar } from '../../ci/variables.ts';

export function findSchedules(db: Kysely<DB>, projectId: number, scope?: 'active' | 'inactive') {
  return db
    .selectFrom('ci_pipeline_schedules')
    .selectAll()
    .where('project_id', '=', projectId)
    .$if(scope !== undefined, (q) => q.where('active', '=', scope === 'active'))
    .orderBy('id');
}

export async function findSchedule(db: Kysely<DB>, projectId: number, id: number): Promise<CiPipelineScheduleRow | null> {
  return (await findSchedules(db, projectId).where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function scheduleVariables(db: Kysely<DB>, scheduleId: number): Promise<CiPipelineScheduleVariableRow[]> {
  return db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('schedule_id', '=', scheduleId).orderBy('id').execute();
}

export async function scheduleVariable(db: Kysely<DB>, scheduleId: number, key: string): Promise<CiPipelineScheduleVariableRow | null> {
  return (await db.selectFrom('ci_pipeline_schedule_variables').selectAll().where('schedule_id', '=', scheduleId).where('key', '=', key).executeTakeFirst()) ?? null;
}

/** A schedule's variables as its pipelines' jobs receive them (after the pipeline's own, notes gitlab-ci.md §3.4). */
export async function scheduleJobVariables(db: Kysely<DB>, box: SecretBox, scheduleId: number | null): Promise<CiVariable[]> {
  if (scheduleId === null) return [];
  const rows = await scheduleVariables(db, scheduleId);
  return rows.map((r) => storedVar({ key: r.key, value: box.open(r.value_encrypted), variable_type: r.variable_type }));
}

export async function lastPipeline(db: Kysely<DB>, scheduleId: number): Promise<CiPipelineRow | null> {
  return (await db.selectFrom('ci_pipelines').selectAll().where('schedule_id', '=', scheduleId).orderBy('id', 'desc').limit(1).executeTakeFirst()) ?? null;
}

/** Active schedules whose time has come, oldest due first. */
export async function dueSchedules(db: Kysely<DB>, now: Date, limit: number): Promise<CiPipelineScheduleRow[]> {
  return db
    .selectFrom('ci_pipeline_schedules')
    .selectAll()
    .where('active', '=', true)
    .where('next_run_at', '<=', now.toISOString())
    .orderBy('next_run_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}
