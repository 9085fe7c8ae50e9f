// Milestones of projects and groups (14.x lib/api/project_milestones.rb, group_milestones.rb and
// milestone_responses.rb, with the licensed edition's burndown events): the entity, which issues,
// merge requests and releases show too, and the parameters of every route.
import { Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { DateOnly, Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';

/** Entities::Milestone: a project's milestone names its project, a group's its group; `expired` is null without a due date. */
export const milestoneFields = {
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Optional(Type.Integer()),
  group_id: Type.Optional(Type.Integer()),
  title: Type.String(),
  description: Nullable(Type.String()),
  state: Literals(['active', 'closed'] as const),
  created_at: Timestamp,
  updated_at: Timestamp,
  due_date: Nullable(DateOnly),
  start_date: Nullable(DateOnly),
  expired: Nullable(Type.Boolean()),
  web_url: Type.String(),
};

export const MilestoneEntity = Entity(milestoneFields);

/** One event of a burndown chart: an issue of the milestone opened, closed or reopened, with its weight. */
export const BurndownEventEntity = Entity({
  created_at: Timestamp,
  weight: Nullable(Type.Integer()),
  action: Literals(['created', 'closed', 'reopened'] as const),
});

/** What a promotion answers: the platform's bare status code, as its endpoint returns it. */
export const PromotedEntity = Type.Literal(200);

export const ParentParams = Params({ id: IdOrPath });
/** `milestone_id` is the milestone's id (not its iid). */
export const MilestoneParams = Params({ id: IdOrPath, milestone_id: Type.Integer() });

export const ListMilestonesQuery = Params({
  state: Type.Optional(OneOf(['active', 'closed', 'all'] as const, { default: 'all' })),
  /** Ignored when include_parent_milestones is true. */
  iids: Type.Optional(CommaList(Type.Integer())),
  /** The exact title. */
  title: Type.Optional(Type.String()),
  /** Words in the title or description. */
  search: Type.Optional(Type.String()),
  include_parent_milestones: Type.Optional(Bool({ default: false })),
  ...PageParams,
});
export type MilestoneFilters = typeof ListMilestonesQuery.static;

/**
 * A date as clients send it: `YYYY-MM-DD`, or an ISO 8601 date-time whose date is taken; blank or
 * null clears it. Years past 9999 get through, for the model to refuse in its own words.
 */
const MilestoneDate = Nullable(Type.String({ pattern: '^(\\d{4,}-\\d{2}-\\d{2}([T ].*)?)?$' }));

const optionalFields = {
  description: Type.Optional(Nullable(Type.String())),
  due_date: Type.Optional(MilestoneDate),
  start_date: Type.Optional(MilestoneDate),
};

/** A null title reads as a blank one, which the model refuses. */
export const CreateMilestoneBody = Params({ title: Nullable(Type.String()), ...optionalFields });
export type CreateMilestoneBody = typeof CreateMilestoneBody.static;

/** At least one of these keys, whatever its value (Grape's at_least_one_of); a blank title changes nothing. */
export const UPDATE_KEYS = ['title', 'description', 'start_date', 'due_date', 'state_event'] as const;
export const UpdateMilestoneBody = Params({
  title: Type.Optional(Nullable(Type.String())),
  ...optionalFields,
  state_event: Type.Optional(OneOf(['close', 'activate'] as const)),
});
export type UpdateMilestoneBody = typeof UpdateMilestoneBody.static;

/** A milestone's issues or merge requests: pages only. */
export const MilestoneIssuablesQuery = Params({ ...PageParams });
