// Runners (the platform's 14.x `lib/api/ci/runner.rb` and `lib/api/ci/runners.rb`): what a runner
// sends to register, verify and unregister itself, and the entities of the runners API.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, CommaList, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { ProjectSimpleEntity } from '../projects/projects.schemas.ts';

export const ACCESS_LEVELS = ['not_protected', 'ref_protected'] as const;
export const RUNNER_TYPES = ['instance_type', 'group_type', 'project_type'] as const;

/** What a runner reports about itself on every call (`info`): free-form, read where known. */
const RunnerInfo = Type.Optional(Type.Record(Type.String(), Type.Unknown()));

export const RegisterRunnerBody = Params({
  token: Type.String(),
  description: Type.Optional(Type.String()),
  maintainer_note: Type.Optional(Type.String()),
  maintenance_note: Type.Optional(Type.String()),
  info: RunnerInfo,
  active: Type.Optional(Bool()),
  paused: Type.Optional(Bool()),
  locked: Type.Optional(Bool()),
  run_untagged: Type.Optional(Bool()),
  tag_list: Type.Optional(CommaList(Type.String())),
  access_level: Type.Optional(OneOf(ACCESS_LEVELS)),
  maximum_timeout: Type.Optional(Type.Integer()),
});
export type RegisterRunnerBody = Static<typeof RegisterRunnerBody>;

export const RunnerTokenBody = Params({ token: Type.String(), system_id: Type.Optional(Type.String()), info: RunnerInfo });

export const RunnerRegistrationEntity = Entity({
  id: Type.Integer(),
  token: Type.String(),
  token_expires_at: Nullable(Type.String()),
});
export type RunnerRegistration = Static<typeof RunnerRegistrationEntity>;

// ---- The runners API (14.x `lib/api/ci/runners.rb`) -------------------------------------------

/** The `scope`, `type` and `status` values of 14.x (`Ci::Runner::AVAILABLE_*`). */
export const RUNNER_STATUSES = ['active', 'paused', 'online', 'offline', 'not_connected'] as const;
export const RUNNER_SCOPES = ['specific', 'shared', ...RUNNER_TYPES, ...RUNNER_STATUSES] as const;

/** Entities::Ci::Runner. */
export const RunnerEntity = Entity({
  id: Type.Integer(),
  description: Type.String(),
  ip_address: Nullable(Type.String()),
  active: Type.Boolean(),
  is_shared: Type.Boolean(),
  runner_type: Type.String(),
  name: Nullable(Type.String()),
  online: Type.Boolean(),
  status: Type.String(),
});
export type Runner = Static<typeof RunnerEntity>;

/** Entities::BasicGroupDetails. */
export const RunnerGroupEntity = Entity({ id: Type.Integer(), web_url: Type.String(), name: Type.String() });

/** Entities::Ci::RunnerDetails: projects in the simple form (BasicProjectDetails). */
export const RunnerDetailsEntity = Entity({
  ...RunnerEntity.properties,
  tag_list: Type.Array(Type.String()),
  run_untagged: Type.Boolean(),
  locked: Type.Boolean(),
  maximum_timeout: Nullable(Type.Integer()),
  access_level: Type.String(),
  version: Nullable(Type.String()),
  revision: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  architecture: Nullable(Type.String()),
  contacted_at: Nullable(Timestamp),
  projects: Type.Array(ProjectSimpleEntity),
  groups: Type.Array(RunnerGroupEntity),
});
export type RunnerDetails = Static<typeof RunnerDetailsEntity>;

const filterFields = {
  type: Type.Optional(OneOf(RUNNER_TYPES)),
  status: Type.Optional(OneOf(RUNNER_STATUSES)),
  tag_list: Type.Optional(CommaList(Type.String())),
};

/** GET /runners: `scope` takes statuses only. */
export const OwnedRunnersQuery = Params({ ...PageParams, scope: Type.Optional(OneOf(RUNNER_STATUSES)), ...filterFields });
/** GET /runners/all and GET /projects/:id/runners: `scope` also takes types and the legacy `shared`/`specific`. */
export const AllRunnersQuery = Params({ ...PageParams, scope: Type.Optional(OneOf(RUNNER_SCOPES)), ...filterFields });
/** GET /groups/:id/runners has no `scope`. */
export const GroupRunnersQuery = Params({ ...PageParams, ...filterFields });
export type RunnerFilters = Partial<Static<typeof AllRunnersQuery>>;

export const RunnerParams = Params({ id: Type.Integer() });
export const OwnerParams = Params({ id: IdOrPath });
export const ProjectRunnerParams = Params({ id: IdOrPath, runner_id: Type.Integer() });
export const EnableRunnerBody = Params({ runner_id: Type.Integer() });

const UPDATABLE = ['description', 'active', 'tag_list', 'run_untagged', 'locked', 'access_level', 'maximum_timeout'];
export const UpdateRunnerBody = Params(
  {
    description: Type.Optional(Type.String()),
    active: Type.Optional(Bool()),
    tag_list: Type.Optional(CommaList(Type.String())),
    run_untagged: Type.Optional(Bool()),
    locked: Type.Optional(Bool()),
    access_level: Type.Optional(OneOf(ACCESS_LEVELS)),
    maximum_timeout: Type.Optional(Type.Integer()),
  },
  { 'x-at-least-one-of': [UPDATABLE] },
);
export type UpdateRunnerBody = Static<typeof UpdateRunnerBody>;

/** Entities::Ci::ResetTokenResult of 14.x: registration tokens do not expire, so the token alone. */
export const ResetTokenEntity = Entity({ token: Type.String() });
