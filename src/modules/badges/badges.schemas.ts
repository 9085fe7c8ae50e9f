// Badges of projects and groups (the platform's badges API, 14.x): entities and route parameters.
import { type Static, Type } from '@sinclair/typebox';
import { PageParams } from '../../core/pagination.ts';
import { IdOrPath, Params } from '../../core/params.ts';
import { Entity, Literals, Nullable } from '../../core/schema.ts';

/** A badge as a preview renders it: its URLs as given and with the project's placeholders filled in. */
export const BasicBadgeEntity = Entity({
  name: Nullable(Type.String()),
  link_url: Type.String(),
  image_url: Type.String(),
  rendered_link_url: Type.String(),
  rendered_image_url: Type.String(),
});
export type BasicBadge = Static<typeof BasicBadgeEntity>;

export const BadgeEntity = Entity({ ...BasicBadgeEntity.properties, id: Type.Integer(), kind: Literals(['project', 'group'] as const) });
export type Badge = Static<typeof BadgeEntity>;

export const SourceParams = Params({ id: IdOrPath });
export const BadgeParams = Params({ id: IdOrPath, badge_id: Type.Integer() });

export const ListBadgesQuery = Params({ ...PageParams, name: Type.Optional(Type.String()) });
export type ListBadgesQuery = Static<typeof ListBadgesQuery>;

export const RenderBadgeQuery = Params({ link_url: Type.String(), image_url: Type.String() });
export type RenderBadgeQuery = Static<typeof RenderBadgeQuery>;

export const CreateBadgeBody = Params({ link_url: Type.String(), image_url: Type.String(), name: Type.Optional(Type.String()) });
export type CreateBadgeBody = Static<typeof CreateBadgeBody>;

export const UpdateBadgeBody = Params({ link_url: Type.Optional(Type.String()), image_url: Type.Optional(Type.String()), name: Type.Optional(Type.String()) });
export type UpdateBadgeBody = Static<typeof UpdateBadgeBody>;
