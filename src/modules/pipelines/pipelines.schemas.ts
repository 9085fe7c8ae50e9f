// Pipelines (spec part 1 §2.4–2.5, §4.2; notes gitlab-ci.md §4.2, 14.x entity order): the entities
// and the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const PIPELINE_STATUSES = ['created', 'waiting_for_resource', 'preparing', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'] as const;
export const PIPELINE_SOURCES = [
  'push', 'web', 'trigger', 'schedule', 'api', 'external', 'pipeline', 'chat', 'webide', 'merge_request_event',
  'external_pull_request_event', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation',
] as const;
/**
 * Sources of pipelines that are not a commit's own CI (Enums::Ci::Pipeline.dangling_sources): a
 * commit's latest pipeline and its statuses leave them out, as `Project#ci_pipelines` does.
 */
export const DANGLING_SOURCES = ['webide', 'parent_pipeline', 'ondemand_dast_scan', 'ondemand_dast_validation'] as const;

/** PipelineBasic: list items and the pipelines nested in other entities. */
export const pipelineBasicFields = {
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  sha: Type.String(),
  ref: Type.String(),
  status: Type.String(),
  source: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
  web_url: Type.String(),
};
export const PipelineBasicEntity = Entity(pipelineBasicFields);
export type PipelineBasic = Static<typeof PipelineBasicEntity>;

export const DetailedStatusEntity = Entity({
  icon: Type.String(),
  text: Type.String(),
  label: Type.String(),
  group: Type.String(),
  tooltip: Type.String(),
  has_details: Type.Boolean(),
  details_path: Type.String(),
  illustration: Type.Null(),
  favicon: Type.String(),
});

export const PipelineEntity = Entity({
  ...pipelineBasicFields,
  before_sha: Type.String(),
  tag: Type.Boolean(),
  yaml_errors: Nullable(Type.String()),
  user: Nullable(Entity(userBasicFields)),
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  committed_at: Nullable(Timestamp),
  duration: Nullable(Type.Integer()),
  queued_duration: Nullable(Type.Number()),
  coverage: Nullable(Type.String()),
  detailed_status: DetailedStatusEntity,
});
export type Pipeline = Static<typeof PipelineEntity>;

export const PipelineVariableEntity = Entity({ variable_type: Type.String(), key: Type.String(), value: Type.String() });

export const ProjectParams = Params({ id: IdOrPath });
export const PipelineParams = Params({ id: IdOrPath, pipeline_id: Type.Integer() });

export const PIPELINE_SCOPES = ['running', 'pending', 'finished', 'branches', 'tags'] as const;
export const PIPELINE_ORDERS = ['id', 'status', 'ref', 'updated_at', 'user_id'] as const;

export const ListPipelinesQuery = Params({
  ...PageParams,
  scope: Type.Optional(OneOf(PIPELINE_SCOPES)),
  status: Type.Optional(OneOf(PIPELINE_STATUSES)),
  source: Type.Optional(OneOf(PIPELINE_SOURCES)),
  ref: Type.Optional(Type.String()),
  sha: Type.Optional(Type.String()),
  yaml_errors: Type.Optional(Bool()),
  name: Type.Optional(Type.String()),
  username: Type.Optional(Type.String()),
  updated_before: Type.Optional(Timestamp),
  updated_after: Type.Optional(Timestamp),
  order_by: Type.Optional(OneOf(PIPELINE_ORDERS, { default: 'id' })),
  sort: Type.Optional(OneOf(['asc', 'desc'] as const, { default: 'desc' })),
});
export type ListPipelinesQuery = Static<typeof ListPipelinesQuery>;

export const PipelineVariableParam = Type.Object({
  key: Type.String(),
  value: Type.String(),
  variable_type: Type.Optional(OneOf(['env_var', 'file'] as const)),
});

export const CreatePipelineBody = Params({
  ref: Type.String(),
  variables: Type.Optional(Type.Array(PipelineVariableParam)),
});
export type CreatePipelineBody = Static<typeof CreatePipelineBody>;

export const LatestPipelineQuery = Params({ ref: Type.Optional(Type.String()) });
