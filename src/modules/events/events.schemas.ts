// Activity events (spec Part 2 §2.6, §4.6): the entity and the parameters the three lists share.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { NoteEntity } from '../notes/notes.schemas.ts';
import { UserBasicEntity } from '../users/users.schemas.ts';
import { EVENT_ACTIONS } from './events.service.ts';

export const PushDataEntity = Entity({
  commit_count: Type.Integer(),
  action: Literals(['created', 'removed', 'pushed']),
  ref_type: Literals(['branch', 'tag']),
  commit_from: Nullable(Type.String()),
  commit_to: Nullable(Type.String()),
  ref: Nullable(Type.String()),
  commit_title: Nullable(Type.String()),
  /** Set only on a bulk push event (one event for many refs). */
  ref_count: Nullable(Type.Integer()),
});

export const EventEntity = Entity({
  id: Type.Integer(),
  // An event has no title of its own; the spec (§2.6) lists the key.
  title: Type.Null(),
  project_id: Nullable(Type.Integer()),
  action_name: Type.String(),
  target_id: Nullable(Type.Integer()),
  target_iid: Nullable(Type.Integer()),
  target_type: Nullable(Type.String()),
  author_id: Type.Integer(),
  target_title: Nullable(Type.String()),
  created_at: Timestamp,
  /** Set on an event whose target is a note (null once the note is deleted). */
  note: Type.Optional(Nullable(NoteEntity)),
  author: UserBasicEntity,
  push_data: Type.Optional(PushDataEntity),
  author_username: Type.String(),
});

export type PushData = Static<typeof PushDataEntity>;
export type Event = Static<typeof EventEntity>;

/** Filter names of target types (§4.6) → the class names stored in events.target_type. */
export const TARGET_TYPES = {
  issue: 'Issue',
  milestone: 'Milestone',
  merge_request: 'MergeRequest',
  note: 'Note',
  project: 'Project',
  snippet: 'Snippet',
  user: 'User',
} as const;
type TargetTypeName = keyof typeof TARGET_TYPES;
const TARGET_TYPE_NAMES = Object.keys(TARGET_TYPES) as TargetTypeName[];

const filters = {
  ...PageParams,
  action: Type.Optional(OneOf(EVENT_ACTIONS)),
  target_type: Type.Optional(OneOf(TARGET_TYPE_NAMES)),
  before: Type.Optional(Type.String({ format: 'date' })),
  after: Type.Optional(Type.String({ format: 'date' })),
  sort: Type.Optional(OneOf(['asc', 'desc'], { default: 'desc' })),
};

export const ListEventsQuery = Params(filters);
export type ListEventsQuery = Static<typeof ListEventsQuery>;

/** GET /events adds `scope=all`: the events of every project the caller is a member of. */
export const OwnEventsQuery = Params({ ...filters, scope: Type.Optional(Type.String()) });
export type OwnEventsQuery = Static<typeof OwnEventsQuery>;

/** A user's ID or username. */
export const UserEventsParams = Params({ id: Type.String({ minLength: 1 }) });
export const ProjectEventsParams = Params({ id: IdOrPath });
