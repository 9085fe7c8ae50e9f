// Repository tags (spec part 1 §2.9, §4.4; the platform's tags API, 14.x): the entity and the
// parameters of every route.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, OneOf, Params } from '../../core/params.ts';
import { Entity, Nullable } from '../../core/schema.ts';
import { CommitEntity } from '../../domain/commit-entity.ts';

/** The release made from a tag. */
export const TagReleaseEntity = Entity({ tag_name: Type.String(), description: Nullable(Type.String()) });

export const TagEntity = Entity({
  name: Type.String(),
  /** The annotation; null for a lightweight tag. */
  message: Nullable(Type.String()),
  /** The tag object's id for an annotated tag, the commit's for a lightweight one. */
  target: Type.String(),
  /** null for a tag of a tree or a blob. */
  commit: Nullable(CommitEntity),
  /** The tag's release; null when it has none. */
  release: Nullable(TagReleaseEntity),
  protected: Type.Boolean(),
});
export type Tag = Static<typeof TagEntity>;

export const ProjectParams = Params({ id: IdOrPath });
/** `tag_name` is URL-encoded in the path (release%2F1.0). */
export const TagParams = Params({ id: IdOrPath, tag_name: Type.String() });
export type TagParams = Static<typeof TagParams>;

export const TAG_ORDERS = ['name', 'updated'] as const;
export const SORTS = ['asc', 'desc'] as const;

export const ListTagsQuery = Params({
  ...PageParams,
  /** updated: the tagged commit's committed date. */
  order_by: Type.Optional(OneOf(TAG_ORDERS, { default: 'updated' })),
  sort: Type.Optional(OneOf(SORTS, { default: 'desc' })),
  search: Type.Optional(Type.String()),
});
export type ListTagsQuery = Static<typeof ListTagsQuery>;

export const CreateTagBody = Params({
  tag_name: Type.String(),
  /** A branch, a tag or a commit id. */
  ref: Type.String(),
  /** Makes an annotated tag unless blank. */
  message: Type.Optional(Type.String()),
});
export type CreateTagBody = Static<typeof CreateTagBody>;
