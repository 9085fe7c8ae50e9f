// Error tracking (spec Part 1 §2.17, §4.12; the platform's error tracking settings and client keys
// APIs, 14.x, with the PUT of later releases): the settings and client key entities, and the
// integrated tracker's errors as a REST list and detail (a Quarry extension, for reporters and up).
// The spec writes the two vendor-named fields with the neutral word `tracker`.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';

export const SettingsEntity = Entity({
  active: Type.Boolean(),
  project_name: Nullable(Type.String()),
  tracker_external_url: Nullable(Type.String()),
  api_url: Nullable(Type.String()),
  integrated: Type.Boolean(),
});
export type Settings = Static<typeof SettingsEntity>;

export const ClientKeyEntity = Entity({
  id: Type.Integer(),
  active: Type.Boolean(),
  public_key: Type.String(),
  tracker_dsn: Type.String(),
});
export type ClientKey = Static<typeof ClientKeyEntity>;

export const ERROR_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type ErrorStatus = (typeof ERROR_STATUSES)[number];

const errorFields = {
  id: Type.Integer(),
  project_id: Type.Integer(),
  /** The exception's type. */
  name: Type.String(),
  /** The exception's value (its message). */
  description: Type.String(),
  /** The culprit: the transaction, or `function(module)` of the last frame. */
  actor: Type.String(),
  platform: Type.String(),
  status: Literals(ERROR_STATUSES),
  events_count: Type.Integer(),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
};

export const ErrorEntity = Entity(errorFields);
export type TrackedError = Static<typeof ErrorEntity>;

export const StackFrameEntity = Entity({
  filename: Nullable(Type.String()),
  function: Nullable(Type.String()),
  module: Nullable(Type.String()),
  lineno: Nullable(Type.Integer()),
  colno: Nullable(Type.Integer()),
  in_app: Nullable(Type.Boolean()),
});
export type StackFrame = Static<typeof StackFrameEntity>;

export const ErrorEventEntity = Entity({
  id: Type.Integer(),
  description: Type.String(),
  environment: Nullable(Type.String()),
  level: Nullable(Type.String()),
  occurred_at: Timestamp,
  /** The frames of the event's exception, oldest call first, as the SDK sent them. */
  stack_trace: Type.Array(StackFrameEntity),
});
export type ErrorEvent = Static<typeof ErrorEventEntity>;

/** One error with its latest event (null only while no event is stored). */
export const ErrorDetailEntity = Entity({ ...errorFields, latest_event: Nullable(ErrorEventEntity) });
export type ErrorDetail = Static<typeof ErrorDetailEntity>;

export const ProjectParams = Params({ id: IdOrPath });
export const ClientKeyParams = Params({ id: IdOrPath, key_id: Type.Integer() });
export const ErrorParams = Params({ id: IdOrPath, error_id: Type.Integer() });
export const ListQuery = Params({ ...PageParams });

export const ERROR_SORTS = ['last_seen', 'first_seen', 'frequency'] as const;
export type ErrorSort = (typeof ERROR_SORTS)[number];

export const ListErrorsQuery = Params({
  ...PageParams,
  status: Type.Optional(OneOf(ERROR_STATUSES)),
  search_term: Type.Optional(Type.String({ maxLength: 1000 })),
  sort: Type.Optional(OneOf(ERROR_SORTS, { default: 'last_seen' })),
});
export type ListErrorsQuery = Static<typeof ListErrorsQuery>;

export const PatchSettingsBody = Params({
  active: Bool(),
  integrated: Type.Optional(Bool()),
});
export type PatchSettingsBody = Static<typeof PatchSettingsBody>;

/** PUT creates the settings when the project has none; an external tracker needs its address and token. */
export const PutSettingsBody = Params({
  active: Bool(),
  integrated: Bool(),
  api_url: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  token: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
  project_name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
});
export type PutSettingsBody = Static<typeof PutSettingsBody>;

export const UpdateErrorBody = Params({ status: OneOf(ERROR_STATUSES) });
export type UpdateErrorBody = Static<typeof UpdateErrorBody>;
