// CI lint (14.x `lib/api/lint.rb`, `Entities::Ci::Lint::Result`, `Gitlab::Ci::Lint`).
import { type Static, Type } from '@sinclair/typebox';
import { Bool, IdOrPath, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';

const policy = Nullable(Type.Record(Type.String(), Type.Unknown()));

/** A job as a dry run shows it (`dry_run_convert_to_jobs`). */
const simulatedJobFields = {
  name: Type.String(),
  stage: Type.String(),
  before_script: Type.Array(Type.String()),
  script: Type.Array(Type.String()),
  after_script: Type.Array(Type.String()),
  tag_list: Type.Array(Type.String()),
  environment: Nullable(Type.String()),
  when: Type.String(),
  allow_failure: Type.Boolean(),
};
const SimulatedJob = Entity(simulatedJobFields);

/** A job as a static check shows it (`static_validation_convert_to_jobs`): with only, except and needs. */
const StaticJob = Entity({
  ...simulatedJobFields,
  only: policy,
  except: policy,
  needs: Nullable(Type.Array(Entity({ name: Type.String(), artifacts: Type.Boolean(), optional: Type.Boolean() }))),
});

export const LintJob = Type.Union([StaticJob, SimulatedJob]);
export type LintJob = Static<typeof LintJob>;

const resultFields = {
  valid: Type.Boolean(),
  errors: Type.Array(Type.String()),
  warnings: Type.Array(Type.String()),
};

/** GET/POST /projects/:id/ci/lint. */
export const ProjectLintEntity = Entity({ ...resultFields, merged_yaml: Nullable(Type.String()), jobs: Type.Optional(Type.Array(LintJob)) });
export type ProjectLint = Static<typeof ProjectLintEntity>;

/** POST /ci/lint: the result with `status`, merged_yaml only when asked. */
export const LintEntity = Entity({
  ...resultFields,
  merged_yaml: Type.Optional(Nullable(Type.String())),
  jobs: Type.Optional(Type.Array(LintJob)),
  status: Type.Union([Type.Literal('valid'), Type.Literal('invalid')]),
});

export const LintBody = Params({ content: Type.String(), include_merged_yaml: Type.Optional(Bool()), include_jobs: Type.Optional(Bool()) });
export const ProjectParams = Params({ id: IdOrPath });
export const ProjectLintQuery = Params({ dry_run: Type.Optional(Bool({ default: false })), include_jobs: Type.Optional(Bool()) });
export const ProjectLintBody = Params({ content: Type.String(), dry_run: Type.Optional(Bool({ default: false })), include_jobs: Type.Optional(Bool()) });
