// Commit statuses (14.x lib/api/commit_statuses.rb, entity CommitStatus): the entity, a commit's
// list and the status an external system posts.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable, Timestamp } from '../../core/schema.ts';
import { COMMIT_STATUS_STATES } from '../../ci/commit-status.ts';
import { userBasicFields } from '../users/users.schemas.ts';

export const CommitStatusEntity = Entity({
  id: Type.Integer(),
  sha: Type.String(),
  ref: Type.String(),
  status: Type.String(),
  name: Type.String(),
  target_url: Nullable(Type.String()),
  description: Nullable(Type.String()),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
  allow_failure: Type.Boolean(),
  coverage: Nullable(Type.Number()),
  author: Nullable(Entity(userBasicFields)),
});
export type CommitStatus = Static<typeof CommitStatusEntity>;

export const ProjectShaParams = Params({ id: IdOrPath, sha: Type.String() });

export const ListStatusesQuery = Params({
  ...PageParams,
  ref: Type.Optional(Type.String()),
  stage: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  // A string read as a boolean (Gitlab::Utils.to_boolean): a word that is neither shows the latest.
  all: Type.Optional(Type.String()),
});
export type ListStatusesQuery = Static<typeof ListStatusesQuery>;

export const CreateStatusBody = Params({
  state: OneOf(COMMIT_STATUS_STATES),
  ref: Type.Optional(Type.String()),
  target_url: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  context: Type.Optional(Type.String()),
  coverage: Type.Optional(Type.Number()),
  pipeline_id: Type.Optional(Type.Integer()),
});
export type CreateStatusBody = Static<typeof CreateStatusBody>;
