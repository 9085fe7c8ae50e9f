// Repository branches (spec part 1 §2.10, §4.5; the platform's branches API, 14.x): the entity and
// the parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity } from '../../core/schema.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';

export const BranchEntity = Entity({
  name: Type.String(),
  commit: CommitEntity,
  /** Reachable from the default branch's head without being that very commit. */
  merged: Type.Boolean(),
  protected: Type.Boolean(),
  developers_can_push: Type.Boolean(),
  developers_can_merge: Type.Boolean(),
  /** Whether the caller may push to it. */
  can_push: Type.Boolean(),
  default: Type.Boolean(),
  web_url: Type.String(),
});
export type Branch = Static<typeof BranchEntity>;

export const ProjectParams = Params({ id: IdOrPath });
/** `branch` is URL-encoded in the path (feature%2Fx). */
export const BranchParams = Params({ id: IdOrPath, branch: Type.String() });
export type BranchParams = Static<typeof BranchParams>;

export const ListBranchesQuery = Params({ ...PageParams, search: Type.Optional(Type.String()) });
export type ListBranchesQuery = Static<typeof ListBranchesQuery>;

export const CreateBranchBody = Params({
  branch: Type.String({ 'x-blank': false }),
  /** A branch, a tag or a commit id. */
  ref: Type.String({ 'x-blank': false }),
});
export type CreateBranchBody = Static<typeof CreateBranchBody>;
