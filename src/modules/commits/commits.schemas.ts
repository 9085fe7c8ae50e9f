// Repository commits (the platform's commits API, 14.x): list, show, and create from file actions.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { Bool, IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';
import { commitFields } from '../../domain/commit-entity.ts';
import { pipelineBasicFields } from '../pipelines/pipelines.schemas.ts';

export const CommitStatsEntity = Entity({ additions: Type.Integer(), deletions: Type.Integer(), total: Type.Integer() });

/** A list entry with with_stats=true. */
export const CommitWithStatsEntity = Entity({ ...commitFields, stats: CommitStatsEntity });

/** One commit: its stats unless stats=false, and its CI state: its latest pipeline's status, and that pipeline for those who read pipelines. */
export const CommitDetailEntity = Entity({
  ...commitFields,
  stats: Type.Optional(CommitStatsEntity),
  status: Nullable(Type.String()),
  project_id: Type.Integer(),
  last_pipeline: Nullable(Entity(pipelineBasicFields)),
});

export const ProjectParams = Params({ id: IdOrPath });
export const CommitParams = Params({ id: IdOrPath, sha: Type.String() });
export type CommitParams = Static<typeof CommitParams>;

export const ListCommitsQuery = Params({
  ...PageParams,
  ref_name: Type.Optional(Type.String()),
  since: Type.Optional(Type.String({ format: 'date-time' })),
  until: Type.Optional(Type.String({ format: 'date-time' })),
  path: Type.Optional(Type.String()),
  all: Type.Optional(Bool()),
  with_stats: Type.Optional(Bool()),
  first_parent: Type.Optional(Bool()),
  order: Type.Optional(OneOf(['default', 'topo'] as const, { default: 'default' })),
  trailers: Type.Optional(Bool({ default: false })),
});
export type ListCommitsQuery = Static<typeof ListCommitsQuery>;

export const ShowCommitQuery = Params({ stats: Type.Optional(Bool({ default: true })) });
export type ShowCommitQuery = Static<typeof ShowCommitQuery>;

export const ACTIONS = ['create', 'update', 'move', 'delete', 'chmod'] as const;
export const ENCODINGS = ['text', 'base64'] as const;

/** One action; which of the optional fields it needs depends on the action (checked by the service). */
const ActionParams = Params({
  action: OneOf(ACTIONS),
  file_path: Type.String(),
  previous_path: Type.Optional(Type.String()),
  content: Type.Optional(Type.String()),
  encoding: Type.Optional(OneOf(ENCODINGS, { default: 'text' })),
  last_commit_id: Type.Optional(Type.String()),
  execute_filemode: Type.Optional(Bool()),
});
export type ActionParams = Static<typeof ActionParams>;

export const CreateCommitBody = Params(
  {
    branch: Type.String({ 'x-blank': false }),
    commit_message: Type.String({ 'x-blank': false }),
    actions: Type.Array(ActionParams),
    start_branch: Type.Optional(Type.String()),
    start_sha: Type.Optional(Type.String()),
    start_project: Type.Optional(IdOrPath),
    author_email: Type.Optional(Type.String()),
    author_name: Type.Optional(Type.String()),
    stats: Type.Optional(Bool({ default: true })),
    force: Type.Optional(Bool({ default: false })),
  },
  { 'x-mutually-exclusive': [['start_branch', 'start_sha']] },
);
export type CreateCommitBody = Static<typeof CreateCommitBody>;

/** Reverting a commit on a branch; a dry run only says whether it would apply. */
export const RevertCommitBody = Params({
  branch: Type.String({ 'x-blank': false }),
  dry_run: Type.Optional(Bool({ default: false })),
});

/** Cherry-picking a commit onto a branch, with the picked commit's message unless one is given. */
export const CherryPickCommitBody = Params({
  branch: Type.String({ 'x-blank': false }),
  dry_run: Type.Optional(Bool({ default: false })),
  message: Type.Optional(Type.String()),
});

/** What a dry run that would succeed answers. */
export const DryRunEntity = Entity({ dry_run: Type.Literal('success') });
