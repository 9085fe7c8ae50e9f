// Running pipeline schedules as durable background work. A periodic task finds the active
// schedules whose next run has come; for each it moves next_run_at on with a compare-and-set (so
// that of several nodes only one takes a given run) and, in the same transaction, enqueues a run
// deduplicated by schedule and time. A run creates a pipeline with source `schedule` as the
// schedule's owner (or, for `play`, as the user who asked), its variables counting for the rules.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { type ServiceContext, systemContext, withTransaction } from '../../core/context.ts';
import { actingUser } from '../../core/auth/actor.ts';
import { secretBox } from '../../core/secret-box.ts';
import type { CiPipelineScheduleRow, DB } from '../../db/schema.ts';
import { type RunningJob, defineJobKind, enqueue } from '../../jobs/queue.ts';
import type { PeriodicTask } from '../../jobs/scheduler.ts';
import { nextRunAfter } from '../../ci/cron.ts';
import { pipelineRefusal } from '../pipelines/index.ts';
import { createPipeline } from '../pipelines/pipelines.service.ts';
import { dueSchedules, scheduleVariables } from './pipeline-schedules.finder.ts';

const RunPayload = Type.Object(
  {
    scheduleId: Type.Integer(),
    /** Who the pipeline runs as: the schedule's owner when it came due, the player for `play`. */
    userId: Type.Integer(),
  },
  { additionalProperties: false },
);

export const runScheduleJob = defineJobKind({
  name: 'pipeline_schedule.run',
  payload: RunPayload,
  run: (ctx, payload, job) => runSchedule(ctx, payload.scheduleId, payload.userId, job),
});

async function runSchedule(ctx: ServiceContext, scheduleId: number, userId: number, job: RunningJob): Promise<void> {
  const done = () => withTransaction(ctx, (tx) => job.complete(tx.db));
  const schedule = await ctx.db.selectFrom('ci_pipeline_schedules').selectAll().where('id', '=', scheduleId).executeTakeFirst();
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
  const project = schedule && (await ctx.db.selectFrom('projects').selectAll().where('id', '=', schedule.project_id).executeTakeFirst());
  // The platform creates nothing for a user who may not run pipelines on the ref.
  if (!schedule || !user || !project || (await pipelineRefusal(ctx.db, user, project, schedule.ref)) !== null) return done();
  const box = secretBox(ctx.config.dataDir);
  const variables = (await scheduleVariables(ctx.db, schedule.id)).map((v) => ({ key: v.key, value: box.open(v.value_encrypted), variable_type: v.variable_type as 'env_var' | 'file' }));
  const result = await createPipeline(
    { ...ctx, actor: actingUser(user) },
    {
      project,
      ref: schedule.ref,
      source: 'schedule',
      user,
      extraVariables: variables,
      saveFailed: true,
      scheduleId: schedule.id,
      // The run is done in the transaction that saves its pipeline: a run cut short makes no second one.
      onSaved: (db) => job.complete(db),
    },
  );
  if (!('pipeline' in result)) await done();
}

/** Enqueues a run of the schedule now, as `userId` (`play`). */
export async function playSchedule(db: Kysely<DB>, schedule: CiPipelineScheduleRow, userId: number, now: Date): Promise<void> {
  await enqueue(db, runScheduleJob, { scheduleId: schedule.id, userId }, { dedupeKey: `${schedule.id}:play:${userId}:${now.toISOString()}` });
}

/** Takes the runs that are due: each schedule's next run moves on, and its run is enqueued, once whatever the number of nodes. */
export async function enqueueDueSchedules(ctx: ServiceContext): Promise<number> {
  const now = ctx.now();
  let taken = 0;
  for (const schedule of await dueSchedules(ctx.db, now, 500)) {
    const next = nextRunAfter(schedule.cron, schedule.cron_timezone, now)?.toISOString() ?? null;
    await withTransaction(ctx, async (tx) => {
      const moved = await tx.db
        .updateTable('ci_pipeline_schedules')
        .set({ next_run_at: next })
        .where('id', '=', schedule.id)
        .where('next_run_at', '=', schedule.next_run_at)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) !== 1 || schedule.owner_id === null) return;
      await enqueue(tx.db, runScheduleJob, { scheduleId: schedule.id, userId: schedule.owner_id }, { dedupeKey: `${schedule.id}:${schedule.next_run_at}` });
      taken += 1;
    });
  }
  return taken;
}

export const runDueSchedulesTask: PeriodicTask = {
  name: 'run_pipeline_schedules',
  everySeconds: 60,
  run: async (deps) => void (await enqueueDueSchedules(systemContext(deps))),
};
