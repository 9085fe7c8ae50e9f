// Jobs (spec part 1 §2.1, §2.3, §4.1; notes gitlab-ci.md §4.1, §4.3, 14.x entity order).
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable, Timestamp } from '../../core/schema.ts';
import { DEPLOYMENT_TIERS } from '../../ci/config/index.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';
import { PipelineBasicEntity } from '../pipelines/pipelines.schemas.ts';
import { ProjectIdentityEntity } from '../projects/projects.schemas.ts';
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

/** Entities::Ci::JobBasicWithProject: a runner's jobs, of any project. */
export const JobBasicWithProjectEntity = Entity({ ...jobBasicFields, project: ProjectIdentityEntity });
export type JobBasicWithProject = Static<typeof JobBasicWithProjectEntity>;

export const BridgeEntity = Entity({ ...jobBasicFields, downstream_pipeline: Nullable(PipelineBasicEntity) });
export type Bridge = Static<typeof BridgeEntity>;

/** The roles of the platform's Gitlab::Access.sym_options_with_owner, lowest first. */
export const PROJECT_ROLES = [['guest', 10], ['reporter', 20], ['developer', 30], ['maintainer', 40], ['owner', 50]] as const;

/**
 * GET /job/allowed_agents (notes gitlab-ci.md §5): the cluster agents a job may use, with what an
 * agent checks of the job. Quarry has no cluster agents, so the list is always empty.
 */
export const AllowedAgentsEntity = Entity({
  allowed_agents: Type.Tuple([]),
  job: Entity({ id: Type.Integer() }),
  pipeline: Entity({ id: Type.Integer() }),
  project: Entity({ id: Type.Integer(), groups: Type.Array(Entity({ id: Type.Integer() })) }),
  user: Entity({ id: Type.Integer(), username: Type.String(), roles_in_project: Type.Array(Literals(PROJECT_ROLES.map(([role]) => role))) }),
  environment: Type.Optional(Entity({ tier: Literals(DEPLOYMENT_TIERS), slug: Type.String() })),
});
export type AllowedAgents = Static<typeof AllowedAgentsEntity>;

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
