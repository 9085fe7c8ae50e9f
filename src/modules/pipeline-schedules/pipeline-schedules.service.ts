// Pipeline schedules: creating and changing them with the platform's validation (cron line and
// time zone, "(KEY) has already been taken" for a variable), taking ownership, and their
// variables. Every save computes the next run from the cron line in the schedule's time zone.
import type { ServiceContext } from '../../core/context.ts';
import { invalidFields, type FieldErrors } from '../../core/errors.ts';
import { secretBox } from '../../core/secret-box.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { CiPipelineScheduleRow, CiPipelineScheduleVariableRow, ProjectRow, UserRow } from '../../db/schema.ts';
import { BLANK, addError } from '../../domain/validation.ts';
import { cronValid, ianaZone, nextRunAfter } from '../../ci/cron.ts';
import { type VariableType, keyErrors, keyTaken } from '../../ci/variable-rules.ts';

export interface ScheduleInput {
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  active: boolean;
}

/** The platform's words for a cron line or zone it cannot read. */
const INVALID_SYNTAX = ' is invalid syntax';

function scheduleErrors(s: ScheduleInput): FieldErrors {
  const errors: FieldErrors = {};
  if (!cronValid(s.cron)) addError(errors, 'cron', INVALID_SYNTAX);
  if (s.cron.trim() === '') addError(errors, 'cron', BLANK);
  if (ianaZone(s.cron_timezone) === null) addError(errors, 'cron_timezone', INVALID_SYNTAX);
  if (s.cron_timezone.trim() === '') addError(errors, 'cron_timezone', BLANK);
  if (s.ref.trim() === '') addError(errors, 'ref', BLANK);
  if (s.description.trim() === '') addError(errors, 'description', BLANK);
  return errors;
}

function checked(ctx: ServiceContext, s: ScheduleInput) {
  const errors = scheduleErrors(s);
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const now = ctx.now();
  return { ...s, next_run_at: nextRunAfter(s.cron, s.cron_timezone, now)?.toISOString() ?? null, updated_at: now.toISOString() };
}

export async function createSchedule(ctx: ServiceContext, project: ProjectRow, owner: UserRow, input: ScheduleInput): Promise<CiPipelineScheduleRow> {
  const values = checked(ctx, input);
  return ctx.db
    .insertInto('ci_pipeline_schedules')
    .values({ project_id: project.id, owner_id: owner.id, ...values, created_at: values.updated_at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateSchedule(ctx: ServiceContext, row: CiPipelineScheduleRow, changes: Partial<ScheduleInput>): Promise<CiPipelineScheduleRow> {
  const values = checked(ctx, {
    description: changes.description ?? row.description,
    ref: changes.ref ?? row.ref,
    cron: changes.cron ?? row.cron,
    cron_timezone: changes.cron_timezone ?? row.cron_timezone,
    active: changes.active ?? row.active,
  });
  return ctx.db.updateTable('ci_pipeline_schedules').set(values).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
}

export async function takeOwnership(ctx: ServiceContext, row: CiPipelineScheduleRow, user: UserRow): Promise<CiPipelineScheduleRow> {
  return ctx.db.updateTable('ci_pipeline_schedules').set({ owner_id: user.id, updated_at: ctx.now().toISOString() }).where('id', '=', row.id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteSchedule(ctx: ServiceContext, row: CiPipelineScheduleRow): Promise<void> {
  await ctx.db.deleteFrom('ci_pipeline_schedules').where('id', '=', row.id).execute();
}

// ---- Variables ----

export async function createScheduleVariable(
  ctx: ServiceContext,
  schedule: CiPipelineScheduleRow,
  input: { key: string; value: string; variable_type?: VariableType },
): Promise<CiPipelineScheduleVariableRow> {
  const errors: FieldErrors = {};
  keyErrors(errors, input.key);
  const clash = await ctx.db.selectFrom('ci_pipeline_schedule_variables').select('id').where('schedule_id', '=', schedule.id).where('key', '=', input.key).executeTakeFirst();
  if (clash) addError(errors, 'key', keyTaken(input.key));
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  const at = ctx.now().toISOString();
  try {
    return await ctx.db
      .insertInto('ci_pipeline_schedule_variables')
      .values({ schedule_id: schedule.id, key: input.key, value_encrypted: secretBox(ctx.config.dataDir).seal(input.value), variable_type: input.variable_type ?? 'env_var', created_at: at, updated_at: at })
      .returningAll()
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw invalidFields({ key: [keyTaken(input.key)] });
    throw error;
  }
}

export async function updateScheduleVariable(
  ctx: ServiceContext,
  row: CiPipelineScheduleVariableRow,
  changes: { value?: string; variable_type?: VariableType },
): Promise<CiPipelineScheduleVariableRow> {
  return ctx.db
    .updateTable('ci_pipeline_schedule_variables')
    .set({
      ...(changes.value !== undefined ? { value_encrypted: secretBox(ctx.config.dataDir).seal(changes.value) } : {}),
      ...(changes.variable_type !== undefined ? { variable_type: changes.variable_type } : {}),
      updated_at: ctx.now().toISOString(),
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteScheduleVariable(ctx: ServiceContext, row: CiPipelineScheduleVariableRow): Promise<void> {
  await ctx.db.deleteFrom('ci_pipeline_schedule_variables').where('id', '=', row.id).execute();
}
