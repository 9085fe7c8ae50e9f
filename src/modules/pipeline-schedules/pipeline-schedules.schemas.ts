// Pipeline schedules (14.x lib/api/ci/pipeline_schedules.rb; entities PipelineSchedule and
// PipelineScheduleDetails, which adds the last pipeline and the variables).
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { VARIABLE_TYPES } from '../../ci/variable-rules.ts';
import { pipelineBasicFields } from '../pipelines/pipelines.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

const scheduleFields = {
  id: Type.Integer(),
  description: Type.String(),
  ref: Type.String(),
  cron: Type.String(),
  cron_timezone: Type.String(),
  next_run_at: Nullable(Timestamp),
  active: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  owner: Nullable(Entity(userBasicFields)),
};
export const PipelineScheduleEntity = Entity(scheduleFields);
export const ScheduleVariableEntity = Entity({ variable_type: Type.String(), key: Type.String(), value: Type.String() });
export const PipelineScheduleDetailsEntity = Entity({
  ...scheduleFields,
  last_pipeline: Nullable(Entity(pipelineBasicFields)),
  variables: Type.Array(ScheduleVariableEntity),
});
export const CreatedEntity = Entity({ message: Type.Literal('201 Created') });

export const ProjectParams = Params({ id: IdOrPath });
export const ScheduleParams = Params({ id: IdOrPath, pipeline_schedule_id: Type.Integer() });
export const ScheduleKeyParams = Params({ id: IdOrPath, pipeline_schedule_id: Type.Integer(), key: Type.String() });
export const ListSchedulesQuery = Params({ ...PageParams, scope: Type.Optional(OneOf(['active', 'inactive'] as const)) });

export const CreateScheduleBody = Params({
  description: Type.String(),
  ref: Type.String({ minLength: 1 }),
  cron: Type.String(),
  cron_timezone: Type.Optional(Type.String({ default: 'UTC' })),
  active: Type.Optional(Bool({ default: true })),
});
export const UpdateScheduleBody = Params({
  description: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
  cron: Type.Optional(Type.String()),
  cron_timezone: Type.Optional(Type.String()),
  active: Type.Optional(Bool()),
});
export const CreateScheduleVariableBody = Params({ key: Type.String(), value: Type.String(), variable_type: Type.Optional(OneOf(VARIABLE_TYPES)) });
export const UpdateScheduleVariableBody = Params({ value: Type.Optional(Type.String()), variable_type: Type.Optional(OneOf(VARIABLE_TYPES)) });
