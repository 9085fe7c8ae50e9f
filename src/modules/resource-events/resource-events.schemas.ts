// Resource events (14.x Entities::ResourceLabelEvent, ResourceStateEvent, ResourceMilestoneEvent)
// and the parameters of their routes.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { MilestoneEntity } from '../milestones/milestones.schemas.ts';
import { userBasicFields } from '../users/users.schemas.ts';

const EVENT_FIELDS = {
  id: Type.Integer(),
  /** Null once the account was deleted for good. */
  user: Nullable(Entity(userBasicFields)),
  created_at: Timestamp,
  resource_type: Type.Union([Type.Literal('Issue'), Type.Literal('MergeRequest')]),
  resource_id: Type.Integer(),
};

/** Entities::LabelBasic. */
const LabelBasicEntity = Entity({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: Nullable(Type.String()),
  description_html: Nullable(Type.String()),
  text_color: Type.String(),
});

export const ResourceLabelEventEntity = Entity({ ...EVENT_FIELDS, label: Nullable(LabelBasicEntity), action: Type.Union([Type.Literal('add'), Type.Literal('remove')]) });
export const ResourceStateEventEntity = Entity({ ...EVENT_FIELDS, state: Type.String() });
export const ResourceMilestoneEventEntity = Entity({
  ...EVENT_FIELDS,
  milestone: Nullable(MilestoneEntity),
  action: Type.Union([Type.Literal('add'), Type.Literal('remove')]),
  state: Type.String(),
});

export const EventableParams = Params({ id: IdOrPath, eventable_id: Type.Integer() });
/** A label event is named by any string (`find` answers 404 for one that names none); the others by an integer. */
export const LabelEventParams = Params({ id: IdOrPath, eventable_id: Type.Integer(), event_id: Type.String() });
export const EventParams = Params({ id: IdOrPath, eventable_id: Type.Integer(), event_id: Type.Integer() });
export const ListResourceEventsQuery = Params({ ...PageParams });
