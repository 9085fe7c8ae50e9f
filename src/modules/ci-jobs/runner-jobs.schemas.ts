// What runners send about jobs (notes gitlab-ci.md §1.3–§1.7): the token in the body or the
// JOB-TOKEN / RUNNER-TOKEN headers, JSON or form-encoded.
import { Type } from '@sinclair/typebox';
import { Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';

const RunnerInfo = Type.Optional(Type.Record(Type.String(), Type.Unknown()));

export const JobRequestBody = Params({
  token: Type.Optional(Type.String()),
  last_update: Type.Optional(Type.String()),
  system_id: Type.Optional(Type.String()),
  info: RunnerInfo,
  session: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const JobIdParams = Params({ id: Type.Integer() });

export const UpdateJobBody = Params({
  token: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  failure_reason: Type.Optional(Type.String()),
  exit_code: Type.Optional(Type.Integer()),
  checksum: Type.Optional(Type.String()),
  output: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  info: RunnerInfo,
  runtime_environment_key: Type.Optional(Type.String()),
});

export const TraceQuery = Params({ token: Type.Optional(Type.String()), debug_trace: Type.Optional(Type.String()) });

/** A job request's answer: the job (notes §1.4), written by job-payload.ts. */
export const JobPayloadEntity = Type.Record(Type.String(), Type.Unknown());

/** PUT /jobs/:id answers the status code as its body, as the platform does. */
export const StatusBodyEntity = Entity({});
