// The milestone entity (14.x Entities::Milestone), as issues and releases show it: a project's
// milestone names its project, a group's its group; `expired` is null without a due date.
import { Type } from '@sinclair/typebox';
import { DateOnly, Entity, Nullable, Timestamp } from '../../core/schema.ts';

export const milestoneFields = {
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Optional(Type.Integer()),
  group_id: Type.Optional(Type.Integer()),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  due_date: Nullable(DateOnly),
  start_date: Nullable(DateOnly),
  expired: Nullable(Type.Boolean()),
  web_url: Type.String(),
};

export const MilestoneEntity = Entity(milestoneFields);
