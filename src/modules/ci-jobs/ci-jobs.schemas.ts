// Jobs (spec part 1 §2.1, §2.3, §4.1; notes gitlab-ci.md §4.1, §4.3, 14.x entity order).
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { PipelineBasicEntity } from '../pipelines/pipelines.schemas.ts';
import { projectIdentityFields } from '../projects/projects.schemas.ts';
import { RunnerEntity } from '../runners/runners.schemas.ts';
import { UserEntity } from '../users/users.schemas.ts';

export const JOB_STATUSES = ['created', 'pending', 'running', 'failed', 'success', 'canceled', 'skipped', 'manual', 'waiting_for_resource', 'preparing', 'scheduled'] as const;

const jobBasicFields = {
  id: Type.Integer(),
  status: Type.String(),
  stage: Type.String(),
  name: Type.String(),
  ref: Type.String(),
  tag: Type.Boolean(),
  coverage: Nullable(Type.Number()),
  allow_failure: Type.Boolean(),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  duration: Nullable(Type.Number()),
  queued_duration: Nullable(Type.Number()),
  user: Nullable(UserEntity),
  commit: Nullable(CommitEntity),
  pipeline: PipelineBasicEntity,
  web_url: Type.String(),
};

export const ArtifactEntity = Entity({ file_type: Type.String(), size: Type.Integer(), filename: Type.String(), file_format: Nullable(Type.String()) });

export const JobEntity = Entity({
  ...jobBasicFields,
  artifacts_file: Type.Optional(Entity({ filename: Type.String(), size: Type.Integer() })),
  artifacts: Type.Array(ArtifactEntity),
  runner: Nullable(RunnerEntity),
  artifacts_expire_at: Nullable(Timestamp),
  tag_list: Type.Array(Type.String()),
});
export type Job = Static<typeof JobEntity>;

export const ProjectIdentityEntity = Entity(projectIdentityFields);

/** Entities::Ci::JobBasicWithProject: a runner's jobs, of any project. */
export const JobBasicWithProjectEntity = Entity({ ...jobBasicFields, project: ProjectIdentityEntity });
export type JobBasicWithProject = Static<typeof JobBasicWithProjectEntity>;

export const BridgeEntity = Entity({ ...jobBasicFields, downstream_pipeline: Nullable(PipelineBasicEntity) });
export type Bridge = Static<typeof BridgeEntity>;

/** One status or several (`scope[]=`); a single value is read as a list of one. */
const Scope = Type.Optional(Type.Array(OneOf(JOB_STATUSES)));

export const ProjectParams = Params({ id: IdOrPath });
export const JobParams = Params({ id: IdOrPath, job_id: Type.Integer() });
export const PipelineJobsParams = Params({ id: IdOrPath, pipeline_id: Type.Integer() });
export const ListJobsQuery = Params({ ...PageParams, scope: Scope });
export const ListPipelineJobsQuery = Params({ ...PageParams, scope: Scope, include_retried: Type.Optional(Bool({ default: false })) });
export type ListPipelineJobsQuery = Static<typeof ListPipelineJobsQuery>;

/** GET /runners/:id/jobs (14.x RunnerJobsFinder: `order_by` only `id`; `sort` applies with it). */
export const RunnerJobsParams = Params({ id: Type.Integer() });
export const RunnerJobsQuery = Params({
  ...PageParams,
  status: Type.Optional(OneOf(JOB_STATUSES)),
  order_by: Type.Optional(OneOf(['id'])),
  sort: Type.Optional(OneOf(['asc', 'desc'], { default: 'desc' })),
});
export type RunnerJobsQuery = Static<typeof RunnerJobsQuery>;
