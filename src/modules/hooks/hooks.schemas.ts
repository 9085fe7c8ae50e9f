// Webhooks (the platform's project hooks, group hooks and system hooks APIs, 14.x): the entities,
// which never show the token, and the parameters of every route. Hook logs (`events`) and their
// resending follow the form later releases give them.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';

const hookFields = {
  id: Type.Integer(),
  url: Type.String(),
  created_at: Timestamp,
  push_events: Type.Boolean(),
  tag_push_events: Type.Boolean(),
  merge_requests_events: Type.Boolean(),
  repository_update_events: Type.Boolean(),
  enable_ssl_verification: Type.Boolean(),
};

const scopedFields = {
  issues_events: Type.Boolean(),
  confidential_issues_events: Type.Boolean(),
  note_events: Type.Boolean(),
  confidential_note_events: Type.Boolean(),
  pipeline_events: Type.Boolean(),
  wiki_page_events: Type.Boolean(),
  deployment_events: Type.Boolean(),
  job_events: Type.Boolean(),
  releases_events: Type.Boolean(),
  push_events_branch_filter: Nullable(Type.String()),
};

/** Entities::Hook: a system hook. */
export const SystemHookEntity = Entity(hookFields);
export type SystemHook = Static<typeof SystemHookEntity>;

/** Entities::ProjectHook. */
export const ProjectHookEntity = Entity({ ...hookFields, project_id: Type.Integer(), ...scopedFields });
export type ProjectHook = Static<typeof ProjectHookEntity>;

/** The group hook entity: a project hook's events for every project of the group, and the group's own. */
export const GroupHookEntity = Entity({ ...hookFields, group_id: Type.Integer(), ...scopedFields, subgroup_events: Type.Boolean(), member_events: Type.Boolean() });
export type GroupHook = Static<typeof GroupHookEntity>;

/** One delivery: what was sent and what came back. */
export const HookEventEntity = Entity({
  id: Type.Integer(),
  url: Type.String(),
  trigger: Type.String(),
  request_headers: Type.Record(Type.String(), Type.String()),
  request_data: Type.Unknown(),
  response_headers: Type.Record(Type.String(), Type.String()),
  response_body: Type.String(),
  execution_duration: Type.Number(),
  response_status: Type.String(),
  internal_error_message: Nullable(Type.String()),
  created_at: Timestamp,
});
export type HookEvent = Static<typeof HookEventEntity>;

export const ResendEntity = Entity({ response_status: Type.Union([Type.Integer(), Type.String()]) });

/** The sample a system hook's test sends (and answers). */
export const SystemHookTestEntity = Entity({
  event_name: Type.String(),
  name: Type.String(),
  path: Type.String(),
  project_id: Type.Integer(),
  owner_name: Type.String(),
  owner_email: Type.String(),
});

export const MessageEntity = Entity({ message: Type.String() });

const Flag = () => Type.Optional(Bool());

const commonBody = {
  push_events: Flag(),
  tag_push_events: Flag(),
  merge_requests_events: Flag(),
  enable_ssl_verification: Flag(),
  token: Type.Optional(Type.String({ maxLength: 10_000 })),
};

const scopedBody = {
  ...commonBody,
  issues_events: Flag(),
  confidential_issues_events: Flag(),
  note_events: Flag(),
  confidential_note_events: Flag(),
  job_events: Flag(),
  pipeline_events: Flag(),
  wiki_page_events: Flag(),
  deployment_events: Flag(),
  releases_events: Flag(),
  push_events_branch_filter: Type.Optional(Type.String({ maxLength: 10_000 })),
};

const Url = Type.String({ maxLength: 10_000 });

export const ProjectHookBody = Params({ url: Url, ...scopedBody });
export const GroupHookBody = Params({ url: Url, ...scopedBody, subgroup_events: Flag(), member_events: Flag() });
export const SystemHookBody = Params({ url: Url, ...commonBody, repository_update_events: Flag() });
export type HookBody = Partial<Static<typeof GroupHookBody> & Static<typeof SystemHookBody>>;

export const ProjectParams = Params({ id: IdOrPath });
export const ProjectHookParams = Params({ id: IdOrPath, hook_id: Type.Integer() });
export const SystemHookParams = Params({ id: Type.Integer() });
export const HookEventParams = Params({ id: IdOrPath, hook_id: Type.Integer(), hook_log_id: Type.Integer() });
export const ListHooksQuery = Params({ ...PageParams });
export const ListEventsQuery = Params({ ...PageParams, status: Type.Optional(OneOf(['successful', 'client_failure', 'server_failure'] as const)) });

/** What a project hook's test may send (TestHooks::ProjectService's triggers). */
export const TEST_TRIGGERS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'note_events',
  'confidential_note_events',
  'merge_requests_events',
  'job_events',
  'pipeline_events',
  'releases_events',
] as const;
export type TestTrigger = (typeof TEST_TRIGGERS)[number];
export const TestHookParams = Params({ id: IdOrPath, hook_id: Type.Integer(), trigger: OneOf(TEST_TRIGGERS) });
