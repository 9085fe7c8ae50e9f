// Runners (the platform's 14.x `lib/api/ci/runner.rb` and `lib/api/ci/runners.rb`): what a runner
// sends to register, verify and unregister itself, and the entities of the runners API.
import { type Static, Type } from '@sinclair/typebox';
import { Bool, CommaList, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';

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
